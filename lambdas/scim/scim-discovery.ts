/**
 * The discovery documents (RFC 7643 §5-§7, RFC 7644 §4), true to what this endpoint does:
 * PATCH yes; bulk, sort, change password and ETags no; filter yes (`userName eq` and
 * `externalId eq` only) with its maximum; only the User resource type. The platform has no
 * update call for a user, so everything add-user sends is immutable.
 */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const PLATFORM_EXTENSION =
  'urn:contact-center-sync:params:scim:schemas:extension:platform:2.0:User';
export const ENTERPRISE_EXTENSION = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

type Mutability = 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';

interface Attribute {
  readonly name: string;
  readonly type: 'string' | 'boolean' | 'complex';
  readonly description: string;
  readonly mutability: Mutability;
  readonly required?: boolean;
  readonly multiValued?: boolean;
  readonly caseExact?: boolean;
  readonly uniqueness?: 'none' | 'server';
  readonly returned?: 'always' | 'default' | 'never';
  readonly subAttributes?: readonly Attribute[];
}

const attribute = (a: Attribute): Record<string, unknown> => ({
  multiValued: false,
  required: false,
  caseExact: false,
  returned: 'default',
  uniqueness: 'none',
  ...a,
  ...(a.subAttributes === undefined ? {} : { subAttributes: a.subAttributes.map(attribute) }),
});

const USER_ATTRIBUTES: readonly Attribute[] = [
  {
    name: 'userName',
    type: 'string',
    description: "The platform's loginUserId (case-sensitive). The platform cannot rename a user.",
    mutability: 'immutable',
    required: true,
    caseExact: true,
    uniqueness: 'server',
  },
  {
    name: 'name',
    type: 'complex',
    description: 'firstName and lastName on the platform, set once when the user is created.',
    mutability: 'immutable',
    required: true,
    subAttributes: [
      {
        name: 'givenName',
        type: 'string',
        description: 'firstName',
        mutability: 'immutable',
        required: true,
      },
      {
        name: 'familyName',
        type: 'string',
        description: 'lastName',
        mutability: 'immutable',
        required: true,
      },
    ],
  },
  {
    name: 'displayName',
    type: 'string',
    description: 'Kept and returned; the platform does not hold it.',
    mutability: 'readWrite',
  },
  {
    name: 'emails',
    type: 'complex',
    multiValued: true,
    description:
      'The primary (or else the work) e-mail is primaryEmailAddr, another one secondaryEmailAddr; set once when the user is created.',
    mutability: 'immutable',
    subAttributes: [
      { name: 'value', type: 'string', description: 'The address.', mutability: 'immutable' },
      { name: 'type', type: 'string', description: 'work or other.', mutability: 'immutable' },
      {
        name: 'primary',
        type: 'boolean',
        description: 'primaryEmailAddr.',
        mutability: 'immutable',
      },
    ],
  },
  {
    name: 'active',
    type: 'boolean',
    description:
      'false deletes the user on the platform (delete-user); true adds it again (add-user).',
    mutability: 'readWrite',
  },
  {
    name: 'password',
    type: 'string',
    description:
      'Accepted and never stored nor returned: the platform signs users in through SAML or the directory.',
    mutability: 'writeOnly',
    returned: 'never',
  },
];

const EXTENSION_ATTRIBUTES: readonly Attribute[] = [
  {
    name: 'userTemplateName',
    type: 'string',
    description: "The platform's user template; the deployment's default when absent.",
    mutability: 'immutable',
  },
  {
    name: 'createInCloudConnect',
    type: 'boolean',
    description:
      'Whether the platform also creates the user in Cloud Connect; the deployment default when absent.',
    mutability: 'immutable',
  },
];

const meta = (baseUrl: string, resourceType: string, path: string) => ({
  resourceType,
  location: `${baseUrl}/${path}`,
});

export const serviceProviderConfig = (baseUrl: string, maxResults: number) => ({
  schemas: [SPC_SCHEMA],
  documentationUri: 'https://github.com/contact-center-sync/contact-center-sync#scim',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'Bearer token',
      description: "A long-lived bearer token kept in the deployment's own Secrets Manager secret.",
      primary: true,
    },
  ],
  meta: meta(baseUrl, 'ServiceProviderConfig', 'ServiceProviderConfig'),
});

const schemaDoc = (
  baseUrl: string,
  id: string,
  name: string,
  description: string,
  attributes: readonly Attribute[],
) => ({
  schemas: [SCHEMA_SCHEMA],
  id,
  name,
  description,
  attributes: attributes.map(attribute),
  meta: meta(baseUrl, 'Schema', `Schemas/${id}`),
});

export const schemas = (baseUrl: string) => [
  schemaDoc(baseUrl, USER_SCHEMA, 'User', 'A user of the contact-center platform', USER_ATTRIBUTES),
  schemaDoc(
    baseUrl,
    PLATFORM_EXTENSION,
    'PlatformUser',
    "What add-user needs besides the core schema's attributes",
    EXTENSION_ATTRIBUTES,
  ),
];

export const resourceTypes = (baseUrl: string) => [
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A user of the contact-center platform',
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: PLATFORM_EXTENSION, required: false }],
    meta: meta(baseUrl, 'ResourceType', 'ResourceTypes/User'),
  },
];

/** A ListResponse of every item (discovery lists are small and never paged). */
export const listOf = <T>(resources: readonly T[]) => ({
  schemas: [LIST_SCHEMA],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});
