import * as z from 'zod/mini';
import type { PlatformSettings } from '../platform/platform-settings';
import { PLATFORM_REGIONS } from '../platform/regions';
import { MAX_API_KEY_MAX_AGE_SECONDS } from './ports';
import { DEFAULT_RETRY_SCHEDULE, SQS_MAX_VISIBILITY_SECONDS } from './retry-schedule';
import '../pipeline/zod-locale';
import { SyncError } from '../errors';

/**
 * The handler environment contract. The CDK stack sets these variables from the deployment
 * config; a missing or invalid one fails at cold start with a message naming it, so a broken
 * deployment never consumes (and dead-letters) messages.
 */
const nonEmpty = z.string().check(z.trim(), z.minLength(1, 'must be set'));

const seconds = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number of seconds' })
    .check(
      z.int('must be a whole number of seconds'),
      z.minimum(min, `must be at least ${min}`),
      z.maximum(max, `must be at most ${max}`),
    );

/** The platform and its API key: what every function that calls the platform is told. */
export const platformEnvShape = {
  PLATFORM_CODE: nonEmpty,
  COMPANY_CODE: nonEmpty,
  ENVIRONMENT_NAME: nonEmpty,
  API_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  CAMPAIGN_REGION: z.enum(PLATFORM_REGIONS, {
    error: `must be one of ${PLATFORM_REGIONS.join(', ')}`,
  }),
  API_KEY_SECRET_ID: nonEmpty,
  API_KEY_SECRETS_REGION: nonEmpty,
  API_KEY_MAX_AGE_SECONDS: z.coerce
    .number({ error: 'must be a number of seconds' })
    .check(
      z.int('must be a whole number of seconds'),
      z.minimum(1, 'must be at least 1'),
      z.maximum(
        MAX_API_KEY_MAX_AGE_SECONDS,
        `must be at most ${MAX_API_KEY_MAX_AGE_SECONDS} (the specs forbid caching the key longer than one hour)`,
      ),
    ),
};

/** The caller's settings from those variables. */
export const platformSettingsOf = (env: {
  readonly PLATFORM_CODE: string;
  readonly COMPANY_CODE: string;
  readonly ENVIRONMENT_NAME: string;
  readonly API_BASE_URL: string;
  readonly CAMPAIGN_REGION: PlatformSettings['campaignRegion'];
  readonly API_KEY_SECRETS_REGION: string;
}): PlatformSettings => ({
  platformCode: env.PLATFORM_CODE,
  companyCode: env.COMPANY_CODE,
  environmentName: env.ENVIRONMENT_NAME,
  baseUrl: env.API_BASE_URL,
  campaignRegion: env.CAMPAIGN_REGION,
  secretsRegion: env.API_KEY_SECRETS_REGION,
});

/** Each issue of a failed parse of `env`, naming its variable (`is not set` when it is missing). */
export const environmentProblems = (
  issues: readonly z.core.$ZodIssue[],
  env: Record<string, string | undefined>,
): string[] =>
  issues.map((issue) => {
    const name = String(issue.path[0] ?? '(environment)');
    const message = env[name] === undefined ? 'is not set' : issue.message;
    return `${name} ${message}`;
  });

export const runtimeEnvSchema = z.object({
  ...platformEnvShape,
  DEAD_LETTER_QUEUE_URL: z.url({ error: 'must be the dead-letter queue URL' }),
  MAX_RECEIVE_COUNT: z.coerce
    .number({ error: 'must be a number' })
    .check(z.int('must be a whole number'), z.minimum(1, 'must be at least 1')),
  RESULT_EVENT_BUS_NAME: z.optional(z.string().check(z.trim(), z.minLength(1))),
  /** The entity ledger table (write actions). */
  LEDGER_TABLE_NAME: z.optional(z.string().check(z.trim(), z.minLength(1))),
  /** Days a tombstone is kept. @default 15 */
  LEDGER_TOMBSTONE_DAYS: z._default(
    z.coerce
      .number({ error: 'must be a number of days' })
      .check(z.int('must be a whole number of days'), z.minimum(1, 'must be at least 1')),
    15,
  ),
  /**
   * The queue the function consumes. With it, a retryable failure waits its backoff in the
   * message's visibility and the retry window applies; without it (tests), failed records come
   * back after the queue's visibility timeout.
   */
  SOURCE_QUEUE_URL: z.optional(z.url({ error: 'must be the source queue URL' })),
  /** Retry window from a message's SentTimestamp. @default 86400 */
  RETRY_WINDOW_SECONDS: z._default(
    seconds(60, 14 * 24 * 3600),
    DEFAULT_RETRY_SCHEDULE.windowSeconds,
  ),
  /** Backoff before the second receive. @default 30 */
  RETRY_FIRST_DELAY_SECONDS: z._default(
    seconds(1, SQS_MAX_VISIBILITY_SECONDS),
    DEFAULT_RETRY_SCHEDULE.firstDelaySeconds,
  ),
  /** Longest backoff between receives. @default 900 */
  RETRY_MAX_DELAY_SECONDS: z._default(
    seconds(1, SQS_MAX_VISIBILITY_SECONDS),
    DEFAULT_RETRY_SCHEDULE.maxDelaySeconds,
  ),
  /** Table holding the shared circuit-breaker state; no breaker without it. */
  BREAKER_TABLE_NAME: z.optional(z.string().check(z.trim(), z.minLength(1))),
  /** This instance's ceiling of requests per second to its platform service; unpaced without it. */
  PLATFORM_RATE_LIMIT_PER_SECOND: z.optional(
    z.coerce
      .number({ error: 'must be a number of requests per second' })
      .check(z.positive('must be more than 0')),
  ),
  /**
   * The service's ceiling for the whole deployment: with the breaker table, instances count
   * each other there and share it; without it each keeps PLATFORM_RATE_LIMIT_PER_SECOND.
   */
  PLATFORM_RATE_CEILING_PER_SECOND: z.optional(
    z.coerce
      .number({ error: 'must be a number of requests per second' })
      .check(z.positive('must be more than 0')),
  ),
  /**
   * The queue the mass-delete brake parks held messages in (destructive actions); no brake
   * without it. Needs `DELETE_BRAKE_LIMIT`, `DELETE_BRAKE_WINDOW_SECONDS` and the ledger table.
   */
  HELD_QUEUE_URL: z.optional(z.url({ error: 'must be the held queue URL' })),
  /** Destructive messages let through per rolling window. */
  DELETE_BRAKE_LIMIT: z.optional(
    z.coerce
      .number({ error: 'must be a number of messages' })
      .check(z.int('must be a whole number'), z.minimum(1, 'must be at least 1')),
  ),
  /** The brake's rolling window. */
  DELETE_BRAKE_WINDOW_SECONDS: z.optional(seconds(60, 7 * 24 * 3600)),
  /** Records of one batch processed at the same time. @default 10 */
  MAX_RECORD_CONCURRENCY: z._default(
    z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)),
    10,
  ),
});

export type RuntimeEnv = z.infer<typeof runtimeEnvSchema>;

/** The function's environment breaks its contract: the deployment must be fixed. */
export class RuntimeEnvError extends SyncError<'RUNTIME_ENV_INVALID'> {
  override readonly name = 'RuntimeEnvError';
  readonly code = 'RUNTIME_ENV_INVALID';
  readonly category = 'operator';
}

/**
 * Reads the contract from `env`. `requireResultBus` is set for the read actions, which publish
 * their results on the bus; `requireLedger` for the write actions, which order their events.
 */
export const readRuntimeEnv = (
  env: Record<string, string | undefined>,
  options: { readonly requireResultBus: boolean; readonly requireLedger?: boolean },
): RuntimeEnv => {
  const parsed = runtimeEnvSchema.safeParse(env);
  const problems = parsed.success ? [] : environmentProblems(parsed.error.issues, env);
  if (
    parsed.success &&
    options.requireResultBus &&
    parsed.data.RESULT_EVENT_BUS_NAME === undefined
  ) {
    problems.push('RESULT_EVENT_BUS_NAME is not set (required by read actions)');
  }
  if (
    parsed.success &&
    options.requireLedger === true &&
    parsed.data.LEDGER_TABLE_NAME === undefined
  ) {
    problems.push('LEDGER_TABLE_NAME is not set (required by actions that change the platform)');
  }
  if (parsed.success && parsed.data.HELD_QUEUE_URL !== undefined) {
    for (const name of [
      'DELETE_BRAKE_LIMIT',
      'DELETE_BRAKE_WINDOW_SECONDS',
      'LEDGER_TABLE_NAME',
    ] as const) {
      if (parsed.data[name] === undefined) {
        problems.push(`${name} is not set (required with HELD_QUEUE_URL: the mass-delete brake)`);
      }
    }
  }
  if (!parsed.success || problems.length > 0) {
    throw new RuntimeEnvError(`Invalid handler environment: ${problems.join('; ')}`);
  }
  return parsed.data;
};
