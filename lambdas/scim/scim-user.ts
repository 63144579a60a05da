import { type AddUserMessage, addUserMessage } from '../actions/add-user';
import type { UserFields } from '../entities/user/model';
import { PLATFORM_EXTENSION, USER_SCHEMA } from './scim-discovery';
import { badRequest } from './scim-error';

/**
 * A SCIM User (RFC 7643 §4.1) as this endpoint reads and writes it: what add-user sends, and
 * the SCIM-only attributes kept beside it (externalId, displayName). Attribute names are case
 * insensitive (RFC 7643 §2.1).
 */
export interface ScimUser {
  readonly userName: string;
  readonly fields: UserFields;
  readonly active: boolean;
  readonly externalId?: string;
  readonly displayName?: string;
}

/** What the deployment fills in when the request carries no extension (IdPs often cannot). */
export interface ScimDefaults {
  readonly userTemplateName: string;
  readonly createInCloudConnect: boolean;
}

/** What the endpoint maps of the core User schema (RFC 7643 §4.1). */
const MAPPED = ['userName', 'name', 'emails', 'active', 'externalId', 'displayName'];

/**
 * The rest of the core User schema: accepted and ignored, because Entra ID's and Okta's default
 * mappings send many of them and a 400 would quarantine the application.
 */
const IGNORED = [
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
];

/** Every attribute of the core User schema a request may name (lower-cased: names are case-insensitive). */
export const CORE_USER_ATTRIBUTES: ReadonlySet<string> = new Set(
  [...MAPPED, ...IGNORED].map((n) => n.toLowerCase()),
);

/**
 * What a POST or PUT body may carry at its top level besides those: the common attributes
 * (RFC 7643 §3.1; `id` and `meta` are read-only and ignored) and schema URNs. Any other name is an
 * error: a typo, or a custom attribute sent without its schema.
 */
const COMMON = new Set(['schemas', 'id', 'meta']);

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value under `name`, whatever its case. */
export const attr = (object: Json, name: string): unknown => {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(object)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
};

const optionalString = (value: unknown, name: string): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest('invalidValue', `${name} must be a string`);
  return value;
};

/** `active` as Entra ID sends it too: a boolean, or the string "True"/"False" in any case. */
export const booleanOf = (value: unknown, name: string): boolean | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) {
    return value.toLowerCase() === 'true';
  }
  throw badRequest('invalidValue', `${name} must be true or false`);
};

export const checkSchemas = (body: Json, expected: string): void => {
  const listed = body.schemas;
  if (!Array.isArray(listed) || !listed.some((s) => s === expected)) {
    throw badRequest('invalidSyntax', `schemas must list ${expected}`);
  }
};

interface Email {
  readonly value: string;
  readonly type?: string;
  readonly primary?: boolean;
}

const emailsOf = (value: unknown): readonly Email[] => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('invalidValue', 'emails must be a list');
  return value.map((item, i) => {
    if (!isObject(item)) throw badRequest('invalidValue', `emails[${i}] must be an object`);
    const address = optionalString(attr(item, 'value'), `emails[${i}].value`);
    if (address === undefined) throw badRequest('invalidValue', `emails[${i}].value is required`);
    const type = optionalString(attr(item, 'type'), `emails[${i}].type`);
    const primary = booleanOf(attr(item, 'primary'), `emails[${i}].primary`);
    return {
      value: address,
      ...(type === undefined ? {} : { type }),
      ...(primary === undefined ? {} : { primary }),
    };
  });
};

/** The primary e-mail, or else the work one, or else the first; another one is the secondary. */
const pickEmails = (emails: readonly Email[]) => {
  const primary =
    emails.find((e) => e.primary === true) ??
    emails.find((e) => e.type?.toLowerCase() === 'work') ??
    emails[0];
  const secondary = emails.find((e) => e !== primary && e.value !== primary?.value);
  return { primary: primary?.value, secondary: secondary?.value };
};

/** Where each add-user field comes from, for errors the IdP's admin can act on. */
export const SCIM_NAME_OF: Readonly<Record<keyof AddUserMessage, string>> = {
  correlationId: 'correlationId',
  occurredAt: 'occurredAt',
  loginUserId: 'userName',
  firstName: 'name.givenName',
  lastName: 'name.familyName',
  primaryEmailAddr: 'emails (the primary or work one)',
  secondaryEmailAddr: 'emails (another one)',
  userTemplateName: `${PLATFORM_EXTENSION}:userTemplateName`,
  createInCloudConnect: `${PLATFORM_EXTENSION}:createInCloudConnect`,
};

/** Reads a User from a POST or PUT body; throws a SCIM 400 naming the attribute. */
export const readScimUser = (body: unknown, defaults: ScimDefaults): ScimUser => {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'the body must be a JSON object');
  checkSchemas(body, USER_SCHEMA);
  const corePrefix = `${USER_SCHEMA}:`.toLowerCase();
  for (const key of Object.keys(body)) {
    const lower = key.toLowerCase();
    // A core attribute named with its schema URN is still one of the core schema's.
    const bare = lower.startsWith(corePrefix) ? lower.slice(corePrefix.length) : lower;
    if (CORE_USER_ATTRIBUTES.has(bare) || COMMON.has(bare)) continue;
    if (bare === lower && lower.startsWith('urn:')) continue;
    throw badRequest(
      'invalidValue',
      `${key} is not an attribute of ${USER_SCHEMA} (an extension's attribute goes under its schema URN)`,
    );
  }
  const userName = optionalString(attr(body, 'userName'), 'userName');
  if (userName === undefined || userName.trim() === '') {
    throw badRequest('invalidValue', 'userName is required');
  }
  const name = attr(body, 'name');
  if (name !== undefined && name !== null && !isObject(name)) {
    throw badRequest('invalidValue', 'name must be an object');
  }
  const givenName = isObject(name)
    ? optionalString(attr(name, 'givenName'), 'name.givenName')
    : undefined;
  const familyName = isObject(name)
    ? optionalString(attr(name, 'familyName'), 'name.familyName')
    : undefined;
  if (givenName === undefined) throw badRequest('invalidValue', 'name.givenName is required');
  if (familyName === undefined) throw badRequest('invalidValue', 'name.familyName is required');
  const { primary, secondary } = pickEmails(emailsOf(attr(body, 'emails')));
  const extension = attr(body, PLATFORM_EXTENSION);
  if (extension !== undefined && extension !== null && !isObject(extension)) {
    throw badRequest('invalidValue', `${PLATFORM_EXTENSION} must be an object`);
  }
  const template = isObject(extension)
    ? optionalString(attr(extension, 'userTemplateName'), SCIM_NAME_OF.userTemplateName)
    : undefined;
  const cloudConnect = isObject(extension)
    ? booleanOf(attr(extension, 'createInCloudConnect'), SCIM_NAME_OF.createInCloudConnect)
    : undefined;
  const fields: UserFields = {
    firstName: givenName,
    lastName: familyName,
    userTemplateName: template ?? defaults.userTemplateName,
    ...(primary === undefined ? {} : { primaryEmailAddr: primary }),
    ...(secondary === undefined ? {} : { secondaryEmailAddr: secondary }),
    createInCloudConnect: cloudConnect ?? defaults.createInCloudConnect,
  };
  // The add-user contract's own rules (lengths, e-mail syntax), named as the IdP knows them.
  const checked = addUserMessage.safeParse({ loginUserId: userName, ...fields });
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const field = String(issue?.path[0] ?? '') as keyof AddUserMessage;
    throw badRequest(
      'invalidValue',
      `${SCIM_NAME_OF[field] ?? field}: ${issue?.message ?? 'is not valid'}`,
    );
  }
  const externalId = optionalString(attr(body, 'externalId'), 'externalId');
  const displayName = optionalString(attr(body, 'displayName'), 'displayName');
  return {
    userName,
    fields,
    active: booleanOf(attr(body, 'active'), 'active') ?? true,
    ...(externalId === undefined ? {} : { externalId }),
    ...(displayName === undefined ? {} : { displayName }),
  };
};

/** Which immutable attribute `next` changes from `current`, if one does. */
export const changedImmutable = (current: ScimUser, next: ScimUser): string | undefined => {
  if (next.userName !== current.userName) return 'userName';
  const fields = Object.keys(SCIM_NAME_OF) as (keyof AddUserMessage)[];
  for (const field of fields) {
    if (field === 'loginUserId' || field === 'correlationId' || field === 'occurredAt') continue;
    const key = field as keyof UserFields;
    if ((current.fields[key] ?? undefined) !== (next.fields[key] ?? undefined)) {
      return SCIM_NAME_OF[field];
    }
  }
  return undefined;
};

/** A User as the endpoint answers it; `password` is never kept, so never returned. */
export const renderScimUser = (
  user: ScimUser,
  resource: {
    readonly id: string;
    readonly created: string;
    readonly lastModified: string;
    readonly location: string;
  },
) => {
  const { fields } = user;
  const emails = [
    ...(fields.primaryEmailAddr === undefined
      ? []
      : [{ value: fields.primaryEmailAddr, type: 'work', primary: true }]),
    ...(fields.secondaryEmailAddr === undefined
      ? []
      : [{ value: fields.secondaryEmailAddr, type: 'other', primary: false }]),
  ];
  return {
    schemas: [USER_SCHEMA, PLATFORM_EXTENSION],
    id: resource.id,
    ...(user.externalId === undefined ? {} : { externalId: user.externalId }),
    userName: user.userName,
    name: { givenName: fields.firstName, familyName: fields.lastName },
    ...(user.displayName === undefined ? {} : { displayName: user.displayName }),
    ...(emails.length === 0 ? {} : { emails }),
    active: user.active,
    [PLATFORM_EXTENSION]: {
      userTemplateName: fields.userTemplateName,
      createInCloudConnect: fields.createInCloudConnect ?? false,
    },
    meta: {
      resourceType: 'User',
      created: resource.created,
      lastModified: resource.lastModified,
      location: resource.location,
    },
  };
};
