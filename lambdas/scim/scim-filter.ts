import { type Filter, parse } from 'scim2-parse-filter';
import { USER_SCHEMA } from './scim-discovery';
import { badRequest } from './scim-error';

/**
 * The filters this endpoint serves (RFC 7644 §3.4.2.2): `userName eq "…"` and
 * `externalId eq "…"`, what Entra ID and Okta send to match a user. The filter is parsed by
 * `scim2-parse-filter` (the whole grammar); any other operator, attribute or combination is
 * refused as `invalidFilter`, never answered as if it matched nothing.
 */
export interface UserFilter {
  readonly attribute: 'userName' | 'externalId';
  readonly value: string;
}

const ATTRIBUTES = { username: 'userName', externalid: 'externalId' } as const;

const parsed = (text: string): Filter => {
  try {
    return parse(text);
  } catch {
    throw badRequest('invalidFilter', 'filter: not a SCIM filter (RFC 7644 §3.4.2.2)');
  }
};

export const parseUserFilter = (text: string): UserFilter => {
  const filter = parsed(text);
  if (!('attrPath' in filter) || filter.op === '[]') {
    throw badRequest(
      'invalidFilter',
      `filter: ${filter.op} is not supported; only \`userName eq "…"\` and \`externalId eq "…"\` are`,
    );
  }
  if (filter.op !== 'eq') {
    throw badRequest('invalidFilter', `filter: operator ${filter.op} is not supported; only eq is`);
  }
  const prefix = `${USER_SCHEMA}:`.toLowerCase();
  const lower = filter.attrPath.toLowerCase();
  const bare = lower.startsWith(prefix) ? lower.slice(prefix.length) : lower;
  const attribute = ATTRIBUTES[bare as keyof typeof ATTRIBUTES];
  if (attribute === undefined) {
    throw badRequest(
      'invalidFilter',
      `filter: ${filter.attrPath} cannot be filtered on; only userName and externalId can`,
    );
  }
  if (typeof filter.compValue !== 'string') {
    throw badRequest('invalidFilter', `filter: ${attribute} is compared with a string`);
  }
  return { attribute, value: filter.compValue };
};
