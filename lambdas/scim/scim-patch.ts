import { PATCH_SCHEMA, USER_SCHEMA } from './scim-discovery';
import { badRequest } from './scim-error';
import { attr, checkSchemas, isObject } from './scim-user';

/**
 * RFC 7644 §3.5.2 PATCH, applied to the User as this endpoint renders it, in the forms Entra ID
 * and Okta send: `op` in any case, an operation without `path` whose value is an object of
 * attributes (its keys may be paths themselves, as Entra ID sends `name.givenName`), a value
 * filter on `emails`, an extension attribute under its schema URN. The result is read like a
 * PUT body, so the same rules (immutable attributes, `active`) apply to both.
 */
type Json = Record<string, unknown>;

const KNOWN_TOP = new Set(
  [
    'userName',
    'name',
    'displayName',
    'emails',
    'active',
    'externalId',
    'nickName',
    'profileUrl',
    'title',
    'userType',
    'preferredLanguage',
    'locale',
    'timezone',
    'password',
    'phoneNumbers',
    'ims',
    'photos',
    'addresses',
    'groups',
    'entitlements',
    'roles',
    'x509Certificates',
  ].map((n) => n.toLowerCase()),
);

const READ_ONLY = new Set(['id', 'meta', 'schemas']);

/** The key `name` is stored under in `object`, whatever its case; `name` when absent. */
const keyIn = (object: Json, name: string): string =>
  Object.keys(object).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;

interface ParsedPath {
  /** The object the attribute lives in: the resource, or an extension's object. */
  readonly container: string | undefined;
  readonly attribute: string;
  readonly filter?: { readonly sub: string; readonly value: unknown };
  readonly sub?: string;
}

const PATH =
  /^([A-Za-z][\w-]*)(?:\[\s*([A-Za-z][\w]*)\s+eq\s+("(?:[^"\\]|\\.)*"|true|false)\s*\])?(?:\.([A-Za-z][\w]*))?$/i;

const parsePath = (raw: string): ParsedPath => {
  let path = raw.trim();
  let container: string | undefined;
  const core = `${USER_SCHEMA}:`;
  if (path.toLowerCase().startsWith(core.toLowerCase())) {
    path = path.slice(core.length);
  } else if (path.toLowerCase().startsWith('urn:')) {
    // `<schema URN>:<attribute>[.<sub>]`: the URN is everything before the last colon.
    const at = path.lastIndexOf(':');
    container = path.slice(0, at);
    path = path.slice(at + 1);
  }
  const match = PATH.exec(path);
  if (match === null) throw badRequest('invalidPath', `path ${raw} is not supported`);
  const [, attribute = '', filterSub, filterValue, sub] = match;
  if (container === undefined && !KNOWN_TOP.has(attribute.toLowerCase())) {
    throw badRequest(
      'invalidPath',
      `path ${raw}: ${attribute} is not an attribute of ${USER_SCHEMA}`,
    );
  }
  return {
    container,
    attribute,
    ...(filterSub === undefined
      ? {}
      : { filter: { sub: filterSub, value: JSON.parse(filterValue ?? 'null') as unknown } }),
    ...(sub === undefined ? {} : { sub }),
  };
};

const matches = (item: unknown, filter: NonNullable<ParsedPath['filter']>): boolean => {
  if (!isObject(item)) return false;
  const value = attr(item, filter.sub);
  return typeof value === 'string' && typeof filter.value === 'string'
    ? value.toLowerCase() === filter.value.toLowerCase()
    : value === filter.value;
};

const applyAt = (resource: Json, op: string, path: ParsedPath, value: unknown): void => {
  let target = resource;
  if (path.container !== undefined) {
    const key = keyIn(resource, path.container);
    const existing = resource[key];
    if (!isObject(existing)) {
      if (op === 'remove') return;
      resource[key] = {};
    }
    target = resource[key] as Json;
  }
  const key = keyIn(target, path.attribute);
  if (path.filter !== undefined) {
    const list = Array.isArray(target[key]) ? [...(target[key] as unknown[])] : [];
    const hits = list.filter((item) =>
      matches(item, path.filter as NonNullable<ParsedPath['filter']>),
    );
    if (op === 'remove') {
      target[key] =
        path.sub === undefined
          ? list.filter((item) => !hits.includes(item))
          : list.map((item) => {
              if (!hits.includes(item) || !isObject(item)) return item;
              const { [keyIn(item, path.sub as string)]: _gone, ...rest } = item;
              return rest;
            });
      return;
    }
    if (hits.length === 0) {
      // Entra ID adds `emails[type eq "work"].value` to a user with no work e-mail yet.
      const created: Json = { [path.filter.sub]: path.filter.value };
      if (path.sub === undefined && isObject(value)) Object.assign(created, value);
      else if (path.sub !== undefined) created[path.sub] = value;
      target[key] = [...list, created];
      return;
    }
    target[key] = list.map((item) => {
      if (!hits.includes(item) || !isObject(item)) return item;
      if (path.sub === undefined) return isObject(value) ? { ...item, ...value } : item;
      return { ...item, [keyIn(item, path.sub)]: value };
    });
    return;
  }
  if (path.sub !== undefined) {
    const parent = isObject(target[key]) ? { ...(target[key] as Json) } : {};
    if (op === 'remove') delete parent[keyIn(parent, path.sub)];
    else parent[keyIn(parent, path.sub)] = value;
    target[key] = parent;
    return;
  }
  if (op === 'remove') {
    delete target[key];
    return;
  }
  const existing = target[key];
  if (Array.isArray(value)) {
    // add appends to a multi-valued attribute (§3.5.2.1); replace replaces it (§3.5.2.3).
    target[key] = op === 'add' && Array.isArray(existing) ? [...existing, ...value] : value;
  } else if (isObject(value) && isObject(existing)) {
    // A complex attribute's sub-attributes not in the value are left unchanged.
    target[key] = { ...existing, ...value };
  } else {
    target[key] = value;
  }
};

/** The resource after the request's operations; throws a SCIM 400 naming what is wrong. */
export const applyPatch = (resource: Json, body: unknown): Json => {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'the body must be a JSON object');
  checkSchemas(body, PATCH_SCHEMA);
  const operations = attr(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw badRequest('invalidSyntax', 'Operations must be a non-empty list');
  }
  const result = structuredClone(resource);
  operations.forEach((operation, i) => {
    if (!isObject(operation))
      throw badRequest('invalidSyntax', `Operations[${i}] must be an object`);
    const rawOp = attr(operation, 'op');
    const op = typeof rawOp === 'string' ? rawOp.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw badRequest('invalidSyntax', `Operations[${i}].op must be add, replace or remove`);
    }
    const path = attr(operation, 'path');
    const value = attr(operation, 'value');
    if (path !== undefined && typeof path !== 'string') {
      throw badRequest('invalidPath', `Operations[${i}].path must be a string`);
    }
    if (path === undefined || path === '') {
      if (op === 'remove') throw badRequest('noTarget', `Operations[${i}]: remove needs a path`);
      if (!isObject(value)) {
        throw badRequest(
          'invalidValue',
          `Operations[${i}].value must be an object when there is no path`,
        );
      }
      for (const [key, item] of Object.entries(value)) {
        // Read-only attributes some clients echo back with the rest: nothing to change.
        if (READ_ONLY.has(key.toLowerCase())) continue;
        if (key.toLowerCase().startsWith('urn:') && isObject(item)) {
          // A whole extension's attributes under its schema URN: merged into it.
          const at = keyIn(result, key);
          result[at] = { ...(isObject(result[at]) ? result[at] : {}), ...item };
          continue;
        }
        applyAt(result, op, parsePath(key), item);
      }
      return;
    }
    if (op !== 'remove' && value === undefined) {
      throw badRequest('invalidValue', `Operations[${i}].value is required for ${op}`);
    }
    applyAt(result, op, parsePath(path), value);
  });
  return result;
};
