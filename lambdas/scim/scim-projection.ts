import { USER_SCHEMA } from './scim-discovery';

/**
 * `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5, §3.9): a resource answered with only
 * the attributes asked for, or without the ones excluded. Names are case-insensitive, may carry
 * the core schema's URN or an extension's, and may name a sub-attribute (`name.givenName`);
 * `id` and `schemas` are always returned.
 */
type Json = Record<string, unknown>;

interface Named {
  /** The resource's key: a core attribute, or an extension's URN. */
  readonly top: string;
  /** The attribute below it: a sub-attribute, or the extension's attribute. */
  readonly sub?: string;
}

const ALWAYS = new Set(['id', 'schemas']);

/** An extension's URN (`urn:…:2.0:User`), with one of its attributes or none. */
const EXTENSION_NAME = /^(urn:.*:\d+\.\d+:[a-z]+)(?::([a-z]\w*))?$/;

const namesOf = (list: string | undefined): Named[] =>
  (list ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '')
    .map((name): Named => {
      const core = `${USER_SCHEMA}:`.toLowerCase();
      const bare = name.startsWith(core) ? name.slice(core.length) : name;
      const extension = EXTENSION_NAME.exec(bare);
      if (extension !== null) {
        const [, urn = '', attribute] = extension;
        return attribute === undefined ? { top: urn } : { top: urn, sub: attribute };
      }
      const [top = '', sub] = bare.split('.');
      return sub === undefined ? { top } : { top, sub };
    });

const keyOf = (object: Json, lower: string): string | undefined =>
  Object.keys(object).find((key) => key.toLowerCase() === lower);

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keeps (`keep`) or drops the sub-attribute `sub` of a value (an object, or a list of them). */
const pick = (value: unknown, sub: string, keep: boolean): unknown => {
  const one = (item: unknown) => {
    if (!isObject(item)) return item;
    const key = keyOf(item, sub);
    if (keep) return key === undefined ? {} : { [key]: item[key] };
    if (key === undefined) return item;
    const { [key]: _dropped, ...rest } = item;
    return rest;
  };
  return Array.isArray(value) ? value.map(one) : one(value);
};

export const project = (
  resource: Json,
  query: {
    readonly attributes?: string | undefined;
    readonly excludedAttributes?: string | undefined;
  },
): Json => {
  const wanted = namesOf(query.attributes);
  if (wanted.length > 0) {
    const kept: Json = {};
    for (const [key, value] of Object.entries(resource)) {
      if (ALWAYS.has(key.toLowerCase())) kept[key] = value;
    }
    for (const { top, sub } of wanted) {
      const key = keyOf(resource, top);
      if (key === undefined || ALWAYS.has(top)) continue;
      const value = resource[key];
      if (sub === undefined) {
        kept[key] = value;
      } else {
        const picked = pick(value, sub, true);
        kept[key] =
          isObject(kept[key]) && isObject(picked) ? { ...(kept[key] as Json), ...picked } : picked;
      }
    }
    return kept;
  }
  const excluded = namesOf(query.excludedAttributes);
  if (excluded.length === 0) return resource;
  const left: Json = { ...resource };
  for (const { top, sub } of excluded) {
    const key = keyOf(left, top);
    if (key === undefined || ALWAYS.has(top)) continue;
    if (sub === undefined) delete left[key];
    else left[key] = pick(left[key], sub, false);
  }
  return left;
};
