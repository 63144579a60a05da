import {
  type ScimError as PatchLibraryError,
  type ScimPatchOperation,
  type ScimResource,
  scimPatch,
} from 'scim-patch';
import { PATCH_SCHEMA, USER_SCHEMA } from './scim-discovery';
import { badRequest, type ScimType } from './scim-error';
import { attr, CORE_USER_ATTRIBUTES, checkSchemas, isObject } from './scim-user';

/**
 * RFC 7644 §3.5.2 PATCH, applied by the `scim-patch` library to the User as this endpoint
 * renders it, in the forms Entra ID and Okta send: `op` in any case, an operation without
 * `path` whose value is an object of attributes (its keys may be paths themselves, as Entra ID
 * sends `name.givenName`), a value filter on `emails` that finds nothing adds the element, an
 * extension attribute under its schema URN. The result is read like a PUT body, so the same
 * rules (immutable attributes, `active`) apply to both.
 */
type Json = Record<string, unknown>;

/** Read-only attributes some clients echo back in a value without a path: nothing to change. */
const READ_ONLY = new Set(['id', 'meta', 'schemas']);

const OPS = new Set(['add', 'replace', 'remove']);

/** The attribute a path names (`emails[type eq "work"].value` → `emails`); `urn:…` for an extension. */
const attributeOf = (path: string): string => {
  const core = `${USER_SCHEMA}:`.toLowerCase();
  const lower = path.trim().toLowerCase();
  const bare = lower.startsWith(core) ? lower.slice(core.length) : lower;
  return bare.startsWith('urn:') ? 'urn:' : (bare.split(/[.[]/)[0] ?? '');
};

const checkPath = (path: string, at: string): void => {
  const attribute = attributeOf(path);
  if (attribute !== 'urn:' && !CORE_USER_ATTRIBUTES.has(attribute)) {
    throw badRequest('invalidPath', `${at}: ${path} is not an attribute of ${USER_SCHEMA}`);
  }
};

/**
 * One operation as the library takes it: `op` lower-cased, read-only attributes left out, and an
 * extension's object under its URN key (whose `2.0` the library would read as a dotted path) as
 * one operation per attribute.
 */
const normalised = (resource: Json, operation: unknown, i: number): ScimPatchOperation[] => {
  const at = `Operations[${i}]`;
  if (!isObject(operation)) throw badRequest('invalidSyntax', `${at} must be an object`);
  const rawOp = attr(operation, 'op');
  const op = typeof rawOp === 'string' ? rawOp.toLowerCase() : '';
  if (!OPS.has(op)) throw badRequest('invalidSyntax', `${at}.op must be add, replace or remove`);
  const path = attr(operation, 'path');
  const value = attr(operation, 'value');
  if (path !== undefined && typeof path !== 'string') {
    throw badRequest('invalidPath', `${at}.path must be a string`);
  }
  if (op === 'remove') {
    if (path === undefined || path === '')
      throw badRequest('noTarget', `${at}: remove needs a path`);
    checkPath(path, at);
    // Unassigned `active` would read as active again: a 2xx for a change that did not happen.
    if (attributeOf(path) === 'active') {
      throw badRequest(
        'mutability',
        `${at}: active cannot be removed; replace it with false to deactivate the user`,
      );
    }
    const extension = extensionNamed(resource, path);
    if (extension !== undefined) {
      // The whole extension: each of its attributes.
      const present = resource[extension];
      return Object.keys(isObject(present) ? present : {}).map((name) => ({
        op: 'remove' as const,
        path: `${extension}:${name}`,
      }));
    }
    return [{ op: 'remove', path, ...(value === undefined ? {} : { value }) }];
  }
  if (value === undefined) throw badRequest('invalidValue', `${at}.value is required for ${op}`);
  if (path === undefined || path === '') {
    if (!isObject(value)) {
      throw badRequest('invalidValue', `${at}.value must be an object when there is no path`);
    }
    const addOrReplace = op as 'add' | 'replace';
    const kept: Json = {};
    const extensions: ScimPatchOperation[] = [];
    for (const [key, item] of Object.entries(value)) {
      if (READ_ONLY.has(key.toLowerCase())) continue;
      checkPath(key, at);
      if (key.toLowerCase().startsWith('urn:') && isObject(item)) {
        for (const [name, sub] of Object.entries(item)) {
          extensions.push({ op: addOrReplace, path: `${key}:${name}`, value: sub });
        }
      } else {
        kept[key] = item;
      }
    }
    return [
      ...(Object.keys(kept).length === 0 ? [] : [{ op: addOrReplace, value: kept }]),
      ...extensions,
    ];
  }
  checkPath(path, at);
  if (extensionNamed(resource, path) !== undefined || isSchemaUrn(path)) {
    // The whole extension as the path: one operation per attribute of its value.
    if (!isObject(value))
      throw badRequest('invalidValue', `${at}.value must be an object for ${path}`);
    return Object.entries(value).map(([name, sub]) => ({
      op: op as 'add' | 'replace',
      path: `${path}:${name}`,
      value: sub,
    }));
  }
  return [{ op: op as 'add' | 'replace', path, value }];
};

/** A schema URN (`urn:…:2.0:User`), not one of its attributes. */
const isSchemaUrn = (path: string): boolean => /^urn:.*:\d+\.\d+:[A-Za-z]+$/i.test(path.trim());

/** The resource's key of the extension `path` names as a whole, if it does. */
const extensionNamed = (resource: Json, path: string): string | undefined =>
  Object.keys(resource).find(
    (key) =>
      key.toLowerCase().startsWith('urn:') && key.toLowerCase() === path.trim().toLowerCase(),
  );

const isLibraryError = (error: unknown): error is PatchLibraryError =>
  error instanceof Error && typeof (error as { scimCode?: unknown }).scimCode === 'string';

/** The resource after the request's operations; throws a SCIM 400 naming what is wrong. */
export const applyPatch = (resource: Json, body: unknown): Json => {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'the body must be a JSON object');
  checkSchemas(body, PATCH_SCHEMA);
  const operations = attr(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw badRequest('invalidSyntax', 'Operations must be a non-empty list');
  }
  const normalisedOperations = operations.flatMap((operation, i) =>
    normalised(resource, operation, i),
  );
  try {
    // Entra ID replaces `emails[type eq "work"].value` on a user without one: it is added.
    return scimPatch(resource as unknown as ScimResource, normalisedOperations, {
      mutateDocument: false,
      treatMissingAsAdd: true,
    }) as unknown as Json;
  } catch (error) {
    if (!isLibraryError(error)) throw error;
    throw badRequest(error.scimCode as ScimType, error.message);
  }
};
