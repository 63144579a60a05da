import { describe, expect, it } from 'vitest';
import { RuntimeEnvError, readRuntimeEnv } from '../../../lambdas/core/entry/runtime-env';
import { VALID_PLATFORM_ENV } from './platform-env-fixture';

const VALID = {
  ...VALID_PLATFORM_ENV,
  DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/add-user-dlq',
  MAX_RECEIVE_COUNT: '5',
} as const;

const REQUIRED = Object.keys(VALID) as (keyof typeof VALID)[];

const failureOf = (
  env: Record<string, string | undefined>,
  requireResultBus = false,
): RuntimeEnvError => {
  try {
    readRuntimeEnv(env, { requireResultBus });
  } catch (error) {
    if (error instanceof RuntimeEnvError) return error;
    throw error;
  }
  throw new Error('readRuntimeEnv accepted the environment');
};

describe('readRuntimeEnv', () => {
  it('reads a complete environment, coercing numbers and defaulting the concurrency', () => {
    // Act
    const env = readRuntimeEnv(VALID, { requireResultBus: false });

    // Assess
    expect(env).toEqual({
      ...VALID,
      API_KEY_MAX_AGE_SECONDS: 300,
      MAX_RECEIVE_COUNT: 5,
      MAX_RECORD_CONCURRENCY: 10,
      LEDGER_TOMBSTONE_DAYS: 15,
      RETRY_WINDOW_SECONDS: 86_400,
      RETRY_FIRST_DELAY_SECONDS: 30,
      RETRY_MAX_DELAY_SECONDS: 900,
    });
  });

  it('ignores variables outside the contract (the Lambda environment has many)', () => {
    // Act
    const env = readRuntimeEnv(
      { ...VALID, AWS_REGION: 'eu-central-1', POWERTOOLS_SERVICE_NAME: 'x' },
      { requireResultBus: false },
    );

    // Assess
    expect(env).not.toHaveProperty('AWS_REGION');
  });

  it.each(REQUIRED)('names %s when it is missing', (name) => {
    // Prepare
    const env: Record<string, string | undefined> = { ...VALID, [name]: undefined };

    // Act
    const failure = failureOf(env);

    // Assess
    expect(failure.message).toBe(`Invalid handler environment: ${name} is not set`);
  });

  it('names every missing variable at once', () => {
    // Act
    const failure = failureOf({ ...VALID, PLATFORM_CODE: undefined, MAX_RECEIVE_COUNT: undefined });

    // Assess
    expect(failure.message).toContain('PLATFORM_CODE is not set');
    expect(failure.message).toContain('MAX_RECEIVE_COUNT is not set');
  });

  it.each([
    ['PLATFORM_CODE', '   ', 'PLATFORM_CODE must be set'],
    ['API_BASE_URL', 'ftp://platform.example.com', 'API_BASE_URL must be an http(s) URL'],
    ['API_BASE_URL', 'not a url', 'API_BASE_URL must be an http(s) URL'],
    ['CAMPAIGN_REGION', 'us-east-2', 'CAMPAIGN_REGION must be one of us-east-1, us-west-2'],
    ['API_KEY_MAX_AGE_SECONDS', 'soon', 'API_KEY_MAX_AGE_SECONDS must be a number of seconds'],
    ['API_KEY_MAX_AGE_SECONDS', '0', 'API_KEY_MAX_AGE_SECONDS must be at least 1'],
    ['API_KEY_MAX_AGE_SECONDS', '1.5', 'API_KEY_MAX_AGE_SECONDS must be a whole number of seconds'],
    ['API_KEY_MAX_AGE_SECONDS', '3601', 'API_KEY_MAX_AGE_SECONDS must be at most 3600'],
    [
      'DEAD_LETTER_QUEUE_URL',
      'add-user-dlq',
      'DEAD_LETTER_QUEUE_URL must be the dead-letter queue URL',
    ],
    ['MAX_RECEIVE_COUNT', '0', 'MAX_RECEIVE_COUNT must be at least 1'],
    ['MAX_RECEIVE_COUNT', 'five', 'MAX_RECEIVE_COUNT must be a number'],
    ['MAX_RECORD_CONCURRENCY', '0', 'MAX_RECORD_CONCURRENCY'],
    ['MAX_RECORD_CONCURRENCY', '101', 'MAX_RECORD_CONCURRENCY'],
  ])('names %s when it is %j', (name, value, expected) => {
    // Act
    const failure = failureOf({ ...VALID, [name]: value });

    // Assess
    expect(failure.message).toContain(expected);
  });

  it('accepts the boundaries of the key max age (the specs allow at most one hour)', () => {
    // Act
    const shortest = readRuntimeEnv(
      { ...VALID, API_KEY_MAX_AGE_SECONDS: '1' },
      { requireResultBus: false },
    );
    const longest = readRuntimeEnv(
      { ...VALID, API_KEY_MAX_AGE_SECONDS: '3600' },
      { requireResultBus: false },
    );

    // Assess
    expect(shortest.API_KEY_MAX_AGE_SECONDS).toBe(1);
    expect(longest.API_KEY_MAX_AGE_SECONDS).toBe(3600);
  });

  it('accepts a plain http base URL (the local simulator)', () => {
    // Act
    const env = readRuntimeEnv(
      { ...VALID, API_BASE_URL: 'http://127.0.0.1:4010' },
      { requireResultBus: false },
    );

    // Assess
    expect(env.API_BASE_URL).toBe('http://127.0.0.1:4010');
  });

  it('requires RESULT_EVENT_BUS_NAME for the read actions only', () => {
    // Act
    const write = readRuntimeEnv(VALID, { requireResultBus: false });
    const read = failureOf(VALID, true);
    const readWithBus = readRuntimeEnv(
      { ...VALID, RESULT_EVENT_BUS_NAME: 'contact-center-sync' },
      { requireResultBus: true },
    );

    // Assess
    expect(write.RESULT_EVENT_BUS_NAME).toBeUndefined();
    expect(read.message).toContain('RESULT_EVENT_BUS_NAME is not set (required by read actions)');
    expect(readWithBus.RESULT_EVENT_BUS_NAME).toBe('contact-center-sync');
  });

  it('needs the limit, window and ledger table with a held queue (the mass-delete brake)', () => {
    // Prepare
    const held = { ...VALID, HELD_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/1/held' };

    // Act
    const missing = failureOf(held, false);
    const complete = readRuntimeEnv(
      {
        ...held,
        DELETE_BRAKE_LIMIT: '500',
        DELETE_BRAKE_WINDOW_SECONDS: '3600',
        LEDGER_TABLE_NAME: 'ledger',
      },
      { requireResultBus: false },
    );

    // Assess
    for (const name of ['DELETE_BRAKE_LIMIT', 'DELETE_BRAKE_WINDOW_SECONDS', 'LEDGER_TABLE_NAME']) {
      expect(missing.message).toContain(
        `${name} is not set (required with HELD_QUEUE_URL: the mass-delete brake)`,
      );
    }
    expect(complete).toMatchObject({ DELETE_BRAKE_LIMIT: 500, DELETE_BRAKE_WINDOW_SECONDS: 3600 });
  });

  it('never puts a variable value into the message', () => {
    // Prepare
    const secretLooking = 'sk-live-0123456789abcdef';

    // Act
    const failure = failureOf({ ...VALID, API_KEY_MAX_AGE_SECONDS: secretLooking });

    // Assess
    expect(failure.message).not.toContain(secretLooking);
  });
});
