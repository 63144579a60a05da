import { type ActionName, isReadAction } from '../actions';
import { createPlatformClients } from './action-executors';
import { createActionHandler } from './action-handler';
import { EventBridgeResultPublisher, SecretsManagerApiKeySource, SqsDeadLetterSink } from './aws';
import { DynamoDbLedgerStore } from './ledger/dynamodb-ledger-store';
import { EntityLedger } from './ledger/entity-ledger';
import { createLogger, createMetrics } from './observability';
import { readRuntimeEnv } from './runtime-env';

/**
 * The Lambda entry point of one action: reads the environment contract (a bad deployment
 * fails here, at cold start, naming the variable) and wires the AWS SDK adapters. Everything
 * is created once per container; SDK clients take their endpoint and credentials from the
 * standard configuration (`AWS_ENDPOINT_URL_*`, credentials chain).
 */
export const createLambdaHandler = (
  action: ActionName,
  options: {
    /**
     * `off` builds a write function without the entity ledger: only the bench uses it, to
     * measure what the ledger costs. @default 'required' for writes
     */
    readonly ledger?: 'required' | 'off';
  } = {},
) => {
  const isRead = isReadAction(action);
  const withLedger = !isRead && options.ledger !== 'off';
  const env = readRuntimeEnv(process.env, { requireResultBus: isRead, requireLedger: withLedger });
  const apiKey = new SecretsManagerApiKeySource({
    secretId: env.API_KEY_SECRET_ID,
    secretsRegion: env.API_KEY_SECRETS_REGION,
    maxAgeSeconds: env.API_KEY_MAX_AGE_SECONDS,
  });
  const clients = createPlatformClients(
    {
      platformCode: env.PLATFORM_CODE,
      companyCode: env.COMPANY_CODE,
      environmentName: env.ENVIRONMENT_NAME,
      baseUrl: env.API_BASE_URL,
      campaignRegion: env.CAMPAIGN_REGION,
      secretsRegion: env.API_KEY_SECRETS_REGION,
    },
    apiKey,
  );
  const deadLetters = new SqsDeadLetterSink({ queueUrl: env.DEAD_LETTER_QUEUE_URL });
  const results =
    env.RESULT_EVENT_BUS_NAME === undefined
      ? undefined
      : new EventBridgeResultPublisher({ eventBusName: env.RESULT_EVENT_BUS_NAME });
  const ledger =
    env.LEDGER_TABLE_NAME === undefined || !withLedger
      ? undefined
      : new EntityLedger({
          store: new DynamoDbLedgerStore({ tableName: env.LEDGER_TABLE_NAME }),
          tombstoneDays: env.LEDGER_TOMBSTONE_DAYS,
        });
  return createActionHandler(action, {
    clients,
    ...(ledger ? { ledger } : {}),
    campaignRegion: env.CAMPAIGN_REGION,
    apiKey,
    deadLetters,
    ...(results ? { results } : {}),
    logger: createLogger(action),
    metrics: createMetrics(action),
    maxReceiveCount: env.MAX_RECEIVE_COUNT,
    recordConcurrency: env.MAX_RECORD_CONCURRENCY,
  });
};
