import { USER_SCHEMA } from './scim-discovery';
import { badRequest } from './scim-error';

/**
 * The filters this endpoint serves (RFC 7644 §3.4.2.2): `userName eq "…"` and
 * `externalId eq "…"`, what Entra ID and Okta send to match a user. Any other operator or
 * attribute is refused as `invalidFilter`, never answered as if it matched nothing.
 */
export interface UserFilter {
  readonly attribute: 'userName' | 'externalId';
  readonly value: string;
}

const COMPARISON = /^\s*([A-Za-z][\w.:-]*)\s+([A-Za-z]+)\s+("(?:[^"\\]|\\.)*")\s*$/;
const OPERATORS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le', 'pr']);
const ATTRIBUTES = { username: 'userName', externalid: 'externalId' } as const;

export const parseUserFilter = (text: string): UserFilter => {
  const match = COMPARISON.exec(text);
  if (match === null) {
    throw badRequest(
      'invalidFilter',
      'filter: only `userName eq "…"` and `externalId eq "…"` are supported (no and/or/not, no pr)',
    );
  }
  const [, path = '', operator = '', quoted = '""'] = match;
  const op = operator.toLowerCase();
  if (op !== 'eq') {
    throw badRequest(
      'invalidFilter',
      OPERATORS.has(op)
        ? `filter: operator ${operator} is not supported; only eq is`
        : `filter: ${operator} is not an operator`,
    );
  }
  const prefix = `${USER_SCHEMA}:`.toLowerCase();
  const lower = path.toLowerCase();
  const bare = lower.startsWith(prefix) ? lower.slice(prefix.length) : lower;
  const attribute = ATTRIBUTES[bare as keyof typeof ATTRIBUTES];
  if (attribute === undefined) {
    throw badRequest(
      'invalidFilter',
      `filter: ${path} cannot be filtered on; only userName and externalId can`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(quoted);
  } catch {
    throw badRequest('invalidFilter', 'filter: the value is not a valid string');
  }
  return { attribute, value: String(value) };
};
