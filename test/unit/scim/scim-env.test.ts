import { describe, expect, it } from 'vitest';
import {
  readScimEnv,
  SCIM_ENVIRONMENT_VARIABLES,
  ScimEnvError,
} from '../../../lambdas/scim/scim-env';
import { VALID_PLATFORM_ENV } from '../core/platform-env-fixture';

const VALID = {
  ...VALID_PLATFORM_ENV,
  LEDGER_TABLE_NAME: 'ledger',
  SCIM_TOKEN_SECRET_ID: 'scim/token',
  SCIM_DEFAULT_USER_TEMPLATE: 'Agent',
} as const;

const failureOf = (env: Record<string, string | undefined>): string => {
  try {
    readScimEnv(env);
  } catch (error) {
    if (error instanceof ScimEnvError) return error.message;
    throw error;
  }
  throw new Error('readScimEnv accepted the environment');
};

describe('readScimEnv', () => {
  it('reads a complete environment with its defaults', () => {
    // Act
    const env = readScimEnv(VALID);

    // Assess
    expect(env).toMatchObject({
      SCIM_DEFAULT_CREATE_IN_CLOUD_CONNECT: false,
      SCIM_MAX_RESULTS: 100,
      LEDGER_TOMBSTONE_DAYS: 15,
      API_KEY_MAX_AGE_SECONDS: 300,
    });
    expect(SCIM_ENVIRONMENT_VARIABLES).toEqual(
      expect.arrayContaining([...Object.keys(VALID), 'HELD_QUEUE_URL']),
    );
  });

  it.each([
    [{ SCIM_TOKEN_SECRET_ID: undefined }, 'SCIM_TOKEN_SECRET_ID is not set'],
    [{ SCIM_DEFAULT_USER_TEMPLATE: ' ' }, 'SCIM_DEFAULT_USER_TEMPLATE must be set'],
    [{ SCIM_MAX_RESULTS: '50' }, 'SCIM_MAX_RESULTS must be at least 100'],
    [
      { SCIM_DEFAULT_CREATE_IN_CLOUD_CONNECT: 'yes' },
      "SCIM_DEFAULT_CREATE_IN_CLOUD_CONNECT must be 'true' or 'false'",
    ],
    [
      { HELD_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/1/held' },
      'DELETE_BRAKE_LIMIT is not set',
    ],
  ])('refuses %o naming the variable', (overrides, expected) => {
    // Act
    const message = failureOf({ ...VALID, ...overrides });

    // Assess
    expect(message).toContain(expected);
  });

  it('reads the brake and the cloud-connect default', () => {
    // Act
    const env = readScimEnv({
      ...VALID,
      SCIM_DEFAULT_CREATE_IN_CLOUD_CONNECT: 'true',
      HELD_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/1/held',
      DELETE_BRAKE_LIMIT: '500',
      DELETE_BRAKE_WINDOW_SECONDS: '3600',
    });

    // Assess
    expect(env).toMatchObject({
      SCIM_DEFAULT_CREATE_IN_CLOUD_CONNECT: true,
      DELETE_BRAKE_LIMIT: 500,
      DELETE_BRAKE_WINDOW_SECONDS: 3600,
    });
  });
});
