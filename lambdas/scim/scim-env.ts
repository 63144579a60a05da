import * as z from 'zod/mini';
import { environmentProblems, platformEnvShape } from '../core/entry/runtime-env';
import { SyncError } from '../core/errors';
import '../core/pipeline/zod-locale';

/**
 * The SCIM function's environment contract (issue 33). The stack sets it from the deployment
 * config (`platformEnvironment(config)` plus the variables below); a missing or invalid one fails
 * at cold start with a message naming it, so a broken deployment never answers an IdP.
 */
const optionalName = z.optional(z.string().check(z.trim(), z.minLength(1)));

const positiveNumber = (unit: string) =>
  z.coerce
    .number({ error: `must be a number of ${unit}` })
    .check(z.positive('must be more than 0'));

const wholeAtLeast = (unit: string, min: number) =>
  z.coerce
    .number({ error: `must be a number of ${unit}` })
    .check(z.int(`must be a whole number of ${unit}`), z.minimum(min, `must be at least ${min}`));

/** RFC 7644 §3.4.2.4: the service's most results per page; Okta asks for pages of 100. */
export const SCIM_MIN_MAX_RESULTS = 100;

export const scimEnvSchema = z.object({
  ...platformEnvShape,
  /** The entity ledger table: every SCIM write is an event of its user there. */
  LEDGER_TABLE_NAME: z.string().check(z.trim(), z.minLength(1, 'must be set')),
  /** Days a tombstone is kept. @default 15 */
  LEDGER_TOMBSTONE_DAYS: z._default(wholeAtLeast('days', 1), 15),
  /** Table holding the shared circuit-breaker state; no breaker without it. */
  BREAKER_TABLE_NAME: optionalName,
  /** This instance's ceiling of requests per second to the user service; unpaced without it. */
  PLATFORM_RATE_LIMIT_PER_SECOND: z.optional(positiveNumber('requests per second')),
  /** The user service's ceiling for the whole deployment, shared through the breaker table. */
  PLATFORM_RATE_CEILING_PER_SECOND: z.optional(positiveNumber('requests per second')),
  /**
   * delete-user's held queue, when its brake is on: SCIM deletes count in the same brake and a
   * held one is parked there. Needs `DELETE_BRAKE_LIMIT` and `DELETE_BRAKE_WINDOW_SECONDS`.
   */
  HELD_QUEUE_URL: z.optional(z.url({ error: 'must be the held queue URL' })),
  /** Deletes let through per rolling window (delete-user's brake). */
  DELETE_BRAKE_LIMIT: z.optional(wholeAtLeast('messages', 1)),
  /** The brake's rolling window. */
  DELETE_BRAKE_WINDOW_SECONDS: z.optional(
    wholeAtLeast('seconds', 60).check(z.maximum(7 * 24 * 3600, 'must be at most 604800')),
  ),
  /** The Secrets Manager secret holding the IdP's bearer token (its own, not the API key's). */
  SCIM_TOKEN_SECRET_ID: z.string().check(z.trim(), z.minLength(1, 'must be set')),
  /** userTemplateName of a user whose request carries no extension (IdPs often cannot send it). */
  SCIM_DEFAULT_USER_TEMPLATE: z.string().check(z.trim(), z.minLength(1, 'must be set')),
  /** createInCloudConnect of a user whose request carries no extension. @default false */
  SCIM_DEFAULT_CREATE_IN_CLOUD_CONNECT: z._default(
    z.pipe(
      z.enum(['true', 'false'], { error: "must be 'true' or 'false'" }),
      z.transform((value) => value === 'true'),
    ),
    false,
  ),
  /** Most resources in one page of `GET /Users`. @default 100 */
  SCIM_MAX_RESULTS: z._default(wholeAtLeast('results', SCIM_MIN_MAX_RESULTS), 100),
});

export type ScimEnv = z.infer<typeof scimEnvSchema>;

export class ScimEnvError extends SyncError<'SCIM_ENV_INVALID'> {
  override readonly name = 'ScimEnvError';
  readonly code = 'SCIM_ENV_INVALID';
  readonly category = 'operator';
}

/** Reads the contract from `env`; throws one error naming every bad variable. */
export const readScimEnv = (env: Record<string, string | undefined>): ScimEnv => {
  const parsed = scimEnvSchema.safeParse(env);
  const problems = parsed.success ? [] : environmentProblems(parsed.error.issues, env);
  if (parsed.success && parsed.data.HELD_QUEUE_URL !== undefined) {
    for (const name of ['DELETE_BRAKE_LIMIT', 'DELETE_BRAKE_WINDOW_SECONDS'] as const) {
      if (parsed.data[name] === undefined) {
        problems.push(`${name} is not set (required with HELD_QUEUE_URL: the mass-delete brake)`);
      }
    }
  }
  if (!parsed.success || problems.length > 0) {
    throw new ScimEnvError(`Invalid SCIM function environment: ${problems.join('; ')}`);
  }
  return parsed.data;
};

/** Every variable the SCIM function reads, besides `POWERTOOLS_*` (the stack sets exactly these). */
export const SCIM_ENVIRONMENT_VARIABLES: readonly string[] = Object.keys(scimEnvSchema.shape);
