import { SQSClient } from '@aws-sdk/client-sqs';
import { type AwsClientConfig, lambdaClientConfig } from '../aws/client-config';
import { ledgerTableClient } from '../aws/ledger-table';
import { SecretsManagerApiKeySource } from '../aws/secrets-manager-api-key-source';
import { SqsDeadLetterSink } from '../aws/sqs-dead-letter-sink';
import { SqsVisibilityRescheduler } from '../aws/sqs-visibility-rescheduler';
import { DynamoDbLedgerStore } from '../ledger/dynamodb-ledger-store';
import type { AnyEntityKind } from '../ledger/entity-kind';
import { EntityLedger } from '../ledger/entity-ledger';
import type { LedgerStore } from '../ledger/ledger-store';
import { availabilityMetric, createLogger, createMetrics } from '../observability/observability';
import type { AnyAction } from '../pipeline/action';
import { createActionHandler } from './invocation-entry';
import { deleteBrakeFor, platformCallerFor } from './platform-wiring';
import type { ResultPublisher } from './ports';
import { readRuntimeEnv } from './runtime-env';

/**
 * How a function is built, once per container: the environment contract read, the AWS SDK
 * adapters wired. No message passes through here; `invocation-entry.ts` routes them.
 */

/** Builds the publisher of a read action's results (an entry point's choice, see below). */
export type ResultPublisherFactory = (options: {
  readonly eventBusName: string;
  readonly clientConfig: AwsClientConfig;
}) => ResultPublisher;

/**
 * The Lambda entry point of one action: reads the environment contract (a bad deployment
 * fails here, at cold start, naming the variable) and wires the AWS SDK adapters. Everything
 * is created once per container; SDK clients take the function's region and credentials from
 * the environment Lambda sets (`lambdaClientConfig`) and their endpoints from the standard
 * configuration (`AWS_ENDPOINT_URL_*`). One DynamoDB client serves the breaker and the ledger,
 * one SQS client the dead letters, rescheduling and the held queue.
 */
export const createLambdaHandler = (
  action: AnyAction,
  options: {
    /**
     * Where a write's entity ledger keeps its items. Only the bench passes one (in memory), to
     * measure what the ledger's table costs. @default the DynamoDB table `LEDGER_TABLE_NAME`
     */
    readonly ledgerStore?: LedgerStore;
    /**
     * The kind of entity a write action's events belong to (lambdas/entities/): its entry point
     * passes it, so that a bundle carries only its own kind's model. Required for writes.
     */
    readonly entity?: AnyEntityKind;
    /**
     * Publishes a read action's results; required for reads. The read entry points pass it, so
     * that only their bundles carry the EventBridge client. @default none
     */
    readonly results?: ResultPublisherFactory;
    /**
     * Settings of every AWS SDK client. The bench passes `{}` to measure the SDK's own default
     * credential chain. @default lambdaClientConfig(): region and credentials from the environment
     */
    readonly clientConfig?: AwsClientConfig;
  } = {},
) => {
  const isRead = action.kind === 'read';
  const withLedgerTable = !isRead && options.ledgerStore === undefined;
  if (!isRead && options.entity === undefined) {
    throw new Error(`${action.name} is a write action: its entry point must pass \`entity\``);
  }
  // The action names its entity kind; the entry point passes the kind's code: they must agree.
  if (!isRead && options.entity?.name !== action.ordering.entity) {
    throw new Error(
      `${action.name} orders ${action.ordering.entity} events: its entry point passes the ${options.entity?.name} kind`,
    );
  }
  const env = readRuntimeEnv(process.env, {
    requireResultBus: isRead,
    requireLedger: withLedgerTable,
  });
  if (isRead && options.results === undefined) {
    throw new Error(`${action.name} is a read action: its entry point must pass \`results\``);
  }
  const clientConfig = options.clientConfig ?? lambdaClientConfig();
  const logger = createLogger(action.name);
  const metrics = createMetrics(action.name);
  const apiKey = new SecretsManagerApiKeySource({
    secretId: env.API_KEY_SECRET_ID,
    secretsRegion: env.API_KEY_SECRETS_REGION,
    maxAgeSeconds: env.API_KEY_MAX_AGE_SECONDS,
    clientConfig,
  });
  const ledgerTable = withLedgerTable ? env.LEDGER_TABLE_NAME : undefined;
  const table = env.BREAKER_TABLE_NAME;
  const dynamoDb =
    table === undefined && ledgerTable === undefined ? undefined : ledgerTableClient(clientConfig);
  const { platform, guard } = platformCallerFor(action.service, env, {
    apiKey,
    dynamoDb,
    logger,
    metrics,
  });
  const ledgerStore =
    options.ledgerStore ??
    (ledgerTable === undefined
      ? undefined
      : new DynamoDbLedgerStore({ tableName: ledgerTable, client: dynamoDb }));
  const ledger =
    ledgerStore === undefined || options.entity === undefined
      ? undefined
      : {
          ledger: new EntityLedger({
            store: ledgerStore,
            tombstoneDays: env.LEDGER_TOMBSTONE_DAYS,
          }),
          entity: options.entity,
        };
  // One SQS client for dead letters, rescheduling and the held queue, as DynamoDB's above.
  const sqs = new SQSClient(clientConfig);
  const brake =
    action.destructive === undefined
      ? undefined
      : deleteBrakeFor(action.name, env, { dynamoDb, sqs: () => sqs, logger });
  return createActionHandler(action, {
    platform,
    ...(ledger ? { ledger } : {}),
    ...(brake ? { brake } : {}),
    campaignRegion: env.CAMPAIGN_REGION,
    deadLetters: new SqsDeadLetterSink({ queueUrl: env.DEAD_LETTER_QUEUE_URL, client: sqs }),
    ...(env.RESULT_EVENT_BUS_NAME === undefined || options.results === undefined
      ? {}
      : { results: options.results({ eventBusName: env.RESULT_EVENT_BUS_NAME, clientConfig }) }),
    logger,
    metrics,
    maxReceiveCount: env.MAX_RECEIVE_COUNT,
    recordConcurrency: env.MAX_RECORD_CONCURRENCY,
    ...(env.SOURCE_QUEUE_URL === undefined
      ? {}
      : {
          rescheduler: new SqsVisibilityRescheduler({
            queueUrl: env.SOURCE_QUEUE_URL,
            client: sqs,
          }),
          retrySchedule: {
            windowSeconds: env.RETRY_WINDOW_SECONDS,
            firstDelaySeconds: env.RETRY_FIRST_DELAY_SECONDS,
            maxDelaySeconds: env.RETRY_MAX_DELAY_SECONDS,
          },
        }),
    ...(guard?.services.length ? { availability: availabilityMetric(guard) } : {}),
  });
};
