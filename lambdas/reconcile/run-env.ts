/**
 * The environment of the stack's reconcile function, set by the stack from the deployment
 * config; a missing or invalid variable fails the cold start naming it.
 */
import * as z from 'zod/mini';
import { platformEnvShape } from '../core/entry/runtime-env';
import { SyncError } from '../core/errors';
import { formatIssues } from '../messages/parse';
import '../core/pipeline/zod-locale';

const nonEmpty = z.string().check(z.trim(), z.minLength(1, 'must be set'));
const json = <T>(schema: z.ZodMiniType<T>) =>
  z
    .pipe(
      z.string().check(z.minLength(1, 'must be set')),
      z.transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.issues.push({ code: 'custom', message: 'must be JSON', input: text });
          return z.NEVER;
        }
      }),
    )
    .check(z.refine((value) => z.safeParse(schema, value).success, 'has the wrong shape'));
const rate = z.coerce
  .number({ error: 'must be requests per second' })
  .check(z.positive('must be more than 0'));

const runEnvSchema = z.object({
  ...platformEnvShape,
  LEDGER_TABLE_NAME: nonEmpty,
  RECONCILE_BUCKET: nonEmpty,
  /** `reconcile.scopes` of the config, as JSON (parsed again by the scope schema). */
  RECONCILE_SCOPES: json(z.record(z.string(), z.unknown())),
  /** action → the URL of its queue, for the repairs. */
  REPAIR_QUEUE_URLS: json(z.record(z.string(), z.string())),
  RECONCILE_READ_RATE_REALTIME: rate,
  RECONCILE_READ_RATE_PROVISIONING: rate,
});

export type RunEnv = Omit<
  z.infer<typeof runEnvSchema>,
  'RECONCILE_SCOPES' | 'REPAIR_QUEUE_URLS'
> & {
  readonly RECONCILE_SCOPES: Record<string, unknown>;
  readonly REPAIR_QUEUE_URLS: Record<string, string>;
};

/** The function's environment breaks its contract: the deployment must be fixed. */
export class RunEnvError extends SyncError<'RUN_ENV_INVALID'> {
  override readonly name = 'RunEnvError';
  readonly code = 'RUN_ENV_INVALID';
  readonly category = 'operator';
}

export const readRunEnv = (
  env: Readonly<Record<string, string | undefined>> = process.env,
): RunEnv => {
  const parsed = z.safeParse(runEnvSchema, env, { reportInput: true });
  if (!parsed.success) {
    throw new RunEnvError(
      `invalid reconcile function environment: ${formatIssues(parsed.error.issues)}`,
    );
  }
  return parsed.data as RunEnv;
};
