import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDbBrakeStore } from '../aws/dynamodb-brake-store';
import { DynamoDbBreakerStore } from '../aws/dynamodb-breaker-store';
import { DynamoDbCensusStore } from '../aws/dynamodb-census-store';
import { SqsHeldQueue } from '../aws/sqs-held-queue';
import { brakeLog, breakerLog, censusLog, requestObserver } from '../observability/observability';
import { PlatformCaller } from '../platform/platform-caller';
import { MassDeleteBrake } from '../resilience/mass-delete-brake';
import { guardFor, type PlatformGuard } from '../resilience/platform-guard';
import type { ApiKeySource } from './ports';
import { platformSettingsOf } from './runtime-env';

/**
 * What every function that calls the platform builds the same way at cold start, the action
 * entry points (wiring.ts) and the SCIM endpoint alike: the caller with its guard, and the
 * mass-delete brake, on their DynamoDB and SQS adapters.
 */

/** The variables the caller and its guard read (runtime-env's and scim-env's alike). */
type PlatformEnv = Parameters<typeof platformSettingsOf>[0] & {
  readonly BREAKER_TABLE_NAME?: string | undefined;
  readonly PLATFORM_RATE_LIMIT_PER_SECOND?: number | undefined;
  readonly PLATFORM_RATE_CEILING_PER_SECOND?: number | undefined;
};

/**
 * The platform caller of `service`: a breaker (with the census) in `BREAKER_TABLE_NAME` when it
 * is set, pacing when a ceiling is, every request observed in the logs and metrics.
 */
export const platformCallerFor = (
  service: string,
  env: PlatformEnv,
  deps: {
    readonly apiKey: ApiKeySource;
    /** The client of the breaker table; defined whenever `BREAKER_TABLE_NAME` is. */
    readonly dynamoDb: DynamoDBClient | undefined;
    readonly logger: Logger;
    readonly metrics: Metrics;
  },
): { readonly platform: PlatformCaller; readonly guard: PlatformGuard | undefined } => {
  const { dynamoDb, logger } = deps;
  const table = env.BREAKER_TABLE_NAME;
  const guard = guardFor(service, {
    store:
      table === undefined
        ? undefined
        : new DynamoDbBreakerStore({ tableName: table, client: dynamoDb }),
    ceilingPerSecond: env.PLATFORM_RATE_LIMIT_PER_SECOND,
    census:
      table === undefined || env.PLATFORM_RATE_CEILING_PER_SECOND === undefined
        ? undefined
        : {
            store: new DynamoDbCensusStore({ tableName: table, client: dynamoDb }),
            serviceCeilingPerSecond: env.PLATFORM_RATE_CEILING_PER_SECOND,
            events: censusLog(logger),
          },
    events: breakerLog(logger),
  });
  const platform = new PlatformCaller(
    platformSettingsOf(env),
    deps.apiKey,
    {},
    { observer: requestObserver(logger, deps.metrics), ...(guard ? { guard } : {}) },
  );
  return { platform, guard };
};

/**
 * The mass-delete brake of `action`, counting in the ledger table and parking held messages in
 * `HELD_QUEUE_URL`; undefined unless the queue, the limit, the window and the table are all set.
 */
export const deleteBrakeFor = (
  action: string,
  env: {
    readonly HELD_QUEUE_URL?: string | undefined;
    readonly LEDGER_TABLE_NAME?: string | undefined;
    readonly DELETE_BRAKE_LIMIT?: number | undefined;
    readonly DELETE_BRAKE_WINDOW_SECONDS?: number | undefined;
  },
  deps: {
    readonly dynamoDb: DynamoDBClient | undefined;
    /** Called only when there is a brake, so that a function without one makes no SQS client. */
    readonly sqs: () => SQSClient;
    readonly logger: Logger;
  },
): { readonly gate: MassDeleteBrake; readonly held: SqsHeldQueue } | undefined =>
  env.HELD_QUEUE_URL === undefined ||
  env.LEDGER_TABLE_NAME === undefined ||
  env.DELETE_BRAKE_LIMIT === undefined ||
  env.DELETE_BRAKE_WINDOW_SECONDS === undefined
    ? undefined
    : {
        gate: new MassDeleteBrake(
          action,
          new DynamoDbBrakeStore({ tableName: env.LEDGER_TABLE_NAME, client: deps.dynamoDb }),
          { limit: env.DELETE_BRAKE_LIMIT, windowMs: env.DELETE_BRAKE_WINDOW_SECONDS * 1000 },
          { events: brakeLog(deps.logger) },
        ),
        held: new SqsHeldQueue({ queueUrl: env.HELD_QUEUE_URL, client: deps.sqs() }),
      };
