import type { Tenant } from './realtime-service';
import {
  isJsonObject,
  type JsonObject,
  optionalString,
  Rejection,
  requiredNonEmptyString,
} from './request-fields';
import type { SimulatorState } from './state';

export const PROVISIONING_PATH_PREFIX = '/platform-admin/api/users/';

/**
 * The service's operations (spec: Endpoints). The HTTP server routes each path suffix in this list
 * to `handleProvisioning` (`index.ts`; any other path is answered 401 as the spec says, held by
 * test/unit/simulator/http-and-auth.test.ts), so a new endpoint is a name here, its case there,
 * and its change to the users in `state.ts`.
 */
export const PROVISIONING_ENDPOINTS = ['add-user', 'query-existence', 'delete-user'] as const;
export type ProvisioningEndpoint = (typeof PROVISIONING_ENDPOINTS)[number];

export const isProvisioningEndpoint = (value: string): value is ProvisioningEndpoint =>
  (PROVISIONING_ENDPOINTS as readonly string[]).includes(value);

export const PROVISIONING_RESULTS = [
  'SUCCESS',
  'UNAUTHORIZED',
  'INVALID_TENANT',
  'INVALID_ARGUMENTS',
  'ALREADY_EXISTS',
  'NOT_SUPPORTED',
  'NOT_FOUND',
  'FAIL',
] as const;
export type ProvisioningResult = (typeof PROVISIONING_RESULTS)[number];

/**
 * How the environment's backing instance authenticates users. The service supports SAML and
 * directory-linked environments; `internal` (the instance's own user directory) is answered
 * NOT_SUPPORTED. Directory-linked environments require `primaryEmailAddr`.
 */
export type UserDirectory = 'saml' | 'directory' | 'internal';

export interface ProvisioningResponse {
  readonly result: ProvisioningResult;
  readonly message: string;
  readonly connectUserId?: string | null;
  readonly cloudConnectStatus?: 'EXISTS' | 'NOT_FOUND' | null;
}

const INVALID_ARGUMENTS = 'INVALID_ARGUMENTS';

/** Loose e-mail shape; the spec only says `<EMAIL>`. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Answers one provisioning request (HTTP 200 body). Never throws for bad input. */
export const handleProvisioning = (
  endpoint: ProvisioningEndpoint,
  body: JsonObject,
  state: SimulatorState,
  tenant: Tenant,
  userDirectory: UserDirectory,
): ProvisioningResponse => {
  try {
    checkTenant(body, tenant);
    if (userDirectory === 'internal') {
      throw new Rejection(
        'NOT_SUPPORTED',
        "user provisioning is not supported for environments that use the instance's internal user directory",
      );
    }
    switch (endpoint) {
      case 'add-user':
        return addUser(body, state, userDirectory);
      case 'query-existence':
        return queryExistence(body, state);
      case 'delete-user':
        return deleteUser(body, state);
    }
  } catch (error) {
    if (error instanceof Rejection) {
      return failure(endpoint, error.status as ProvisioningResult, error.message);
    }
    throw error;
  }
};

/** A failure body; query-existence always carries its two extra fields. */
export const failure = (
  endpoint: ProvisioningEndpoint,
  result: ProvisioningResult,
  message: string,
): ProvisioningResponse =>
  endpoint === 'query-existence'
    ? { result, message, cloudConnectStatus: null, connectUserId: null }
    : { result, message };

const checkTenant = (body: JsonObject, tenant: Tenant): void => {
  const given = body.tenant;
  if (!isJsonObject(given)) throw new Rejection('INVALID_TENANT', 'tenant object is required');
  const expected: readonly [string, string][] = [
    ['platform', tenant.platformCode],
    ['companyCode', tenant.companyCode],
    ['environment', tenant.environmentName],
  ];
  for (const [field, value] of expected) {
    if (given[field] !== value) {
      throw new Rejection('INVALID_TENANT', `tenant.${field} does not match this environment`);
    }
  }
};

const optionalEmail = (body: JsonObject, field: string): string | undefined => {
  const value = optionalString(body, field, INVALID_ARGUMENTS);
  if (value !== undefined && !EMAIL.test(value)) {
    throw new Rejection(INVALID_ARGUMENTS, `${field} must be an e-mail address`);
  }
  return value;
};

const addUser = (
  body: JsonObject,
  state: SimulatorState,
  userDirectory: UserDirectory,
): ProvisioningResponse => {
  const loginUserId = requiredNonEmptyString(body, 'loginUserId', INVALID_ARGUMENTS);
  const firstName = requiredNonEmptyString(body, 'firstName', INVALID_ARGUMENTS);
  const lastName = requiredNonEmptyString(body, 'lastName', INVALID_ARGUMENTS);
  const userTemplateName = requiredNonEmptyString(body, 'userTemplateName', INVALID_ARGUMENTS);
  // Ignored for SAML environments, so only its shape is checked there.
  const primaryEmailAddr = optionalEmail(body, 'primaryEmailAddr');
  const secondaryEmailAddr = optionalEmail(body, 'secondaryEmailAddr');
  const createInCloudConnect = body.createInCloudConnect;
  if (
    createInCloudConnect !== undefined &&
    createInCloudConnect !== null &&
    typeof createInCloudConnect !== 'boolean'
  ) {
    throw new Rejection(INVALID_ARGUMENTS, 'createInCloudConnect must be a boolean');
  }
  if (userDirectory === 'directory' && primaryEmailAddr === undefined) {
    throw new Rejection(
      INVALID_ARGUMENTS,
      'primaryEmailAddr is required for directory-linked environments',
    );
  }
  if (state.storedUser(loginUserId)) {
    throw new Rejection('ALREADY_EXISTS', 'a user with this loginUserId already exists');
  }
  const user = state.createUser({
    loginUserId,
    firstName,
    lastName,
    userTemplateName,
    primaryEmailAddr: userDirectory === 'saml' ? null : (primaryEmailAddr ?? null),
    secondaryEmailAddr: secondaryEmailAddr ?? null,
    inCloudConnect: createInCloudConnect === true,
  });
  state.markApplied({ action: 'add-user', loginUserId });
  return user.connectUserId === null
    ? { result: 'SUCCESS', message: 'user created' }
    : {
        result: 'SUCCESS',
        message: 'user created in the platform and in the backing instance',
        connectUserId: user.connectUserId,
      };
};

const queryExistence = (body: JsonObject, state: SimulatorState): ProvisioningResponse => {
  const loginUserId = requiredNonEmptyString(body, 'loginUserId', INVALID_ARGUMENTS);
  const user = state.storedUser(loginUserId);
  if (!user) throw new Rejection('NOT_FOUND', 'user not found');
  return user.inCloudConnect && user.connectUserId !== null
    ? {
        result: 'SUCCESS',
        message: 'user exists in the platform and in the backing instance',
        cloudConnectStatus: 'EXISTS',
        connectUserId: user.connectUserId,
      }
    : {
        result: 'SUCCESS',
        message: 'user exists in the platform but not in the backing instance',
        cloudConnectStatus: 'NOT_FOUND',
        connectUserId: null,
      };
};

const deleteUser = (body: JsonObject, state: SimulatorState): ProvisioningResponse => {
  const loginUserId = requiredNonEmptyString(body, 'loginUserId', INVALID_ARGUMENTS);
  if (!state.deleteUser(loginUserId)) throw new Rejection('NOT_FOUND', 'user not found');
  state.markApplied({ action: 'delete-user', loginUserId });
  return { result: 'SUCCESS', message: 'user deleted' };
};
