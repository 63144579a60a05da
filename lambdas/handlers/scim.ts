import { SQSClient } from '@aws-sdk/client-sqs';
import { deleteUser } from '../actions/delete-user';
import { lambdaClientConfig } from '../core/aws/client-config';
import { DynamoDbBrakeStore } from '../core/aws/dynamodb-brake-store';
import { DynamoDbBreakerStore } from '../core/aws/dynamodb-breaker-store';
import { DynamoDbCensusStore } from '../core/aws/dynamodb-census-store';
import { ledgerTableClient } from '../core/aws/ledger-table';
import { SecretsManagerApiKeySource } from '../core/aws/secrets-manager-api-key-source';
import { SqsHeldQueue } from '../core/aws/sqs-held-queue';
import { DynamoDbLedgerStore } from '../core/ledger/dynamodb-ledger-store';
import { MassDeleteBrake } from '../core/mass-delete-brake';
import {
  availabilityMetric,
  brakeLog,
  breakerLog,
  censusLog,
  createLogger,
  createMetrics,
  requestObserver,
} from '../core/observability';
import { PlatformCaller } from '../core/platform-caller';
import { guardFor } from '../core/platform-guard';
import { platformSettingsOf } from '../core/runtime-env';
import { dynamoDbProfileLister } from '../scim/dynamodb-profile-lister';
import { readScimEnv } from '../scim/scim-env';
import { createScimHandler } from '../scim/scim-handler';

/**
 * Lambda entry point of the SCIM 2.0 endpoint (API Gateway REST proxy): the environment read
 * once per container (a bad one fails here, naming the variable), the same AWS adapters as the
 * user handlers'; SCIM deletes count in delete-user's brake and park in its held queue.
 */
const env = readScimEnv(process.env);
const clientConfig = lambdaClientConfig();
const logger = createLogger('scim');
const metrics = createMetrics('scim');
const dynamoDb = ledgerTableClient(clientConfig);
const table = env.BREAKER_TABLE_NAME;
const guard = guardFor(deleteUser.service, {
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
const secret = (secretId: string) =>
  new SecretsManagerApiKeySource({
    secretId,
    secretsRegion: env.API_KEY_SECRETS_REGION,
    maxAgeSeconds: env.API_KEY_MAX_AGE_SECONDS,
    clientConfig,
  });
const platform = new PlatformCaller(
  platformSettingsOf(env),
  secret(env.API_KEY_SECRET_ID),
  {},
  { observer: requestObserver(logger, metrics), ...(guard ? { guard } : {}) },
);
const brake =
  env.HELD_QUEUE_URL === undefined ||
  env.DELETE_BRAKE_LIMIT === undefined ||
  env.DELETE_BRAKE_WINDOW_SECONDS === undefined
    ? undefined
    : {
        gate: new MassDeleteBrake(
          deleteUser.name,
          new DynamoDbBrakeStore({ tableName: env.LEDGER_TABLE_NAME, client: dynamoDb }),
          { limit: env.DELETE_BRAKE_LIMIT, windowMs: env.DELETE_BRAKE_WINDOW_SECONDS * 1000 },
          { events: brakeLog(logger) },
        ),
        held: new SqsHeldQueue({
          queueUrl: env.HELD_QUEUE_URL,
          client: new SQSClient(clientConfig),
        }),
      };

export const handler = createScimHandler({
  platform,
  ledgerStore: new DynamoDbLedgerStore({ tableName: env.LEDGER_TABLE_NAME, client: dynamoDb }),
  listProfiles: dynamoDbProfileLister({ tableName: env.LEDGER_TABLE_NAME, client: dynamoDb }),
  tombstoneDays: env.LEDGER_TOMBSTONE_DAYS,
  ...(brake === undefined ? {} : { brake }),
  // Its own secret, cached no longer than the platform key.
  tokens: secret(env.SCIM_TOKEN_SECRET_ID),
  defaults: {
    userTemplateName: env.SCIM_DEFAULT_USER_TEMPLATE,
    createInCloudConnect: env.SCIM_DEFAULT_CREATE_IN_CLOUD_CONNECT,
  },
  maxResults: env.SCIM_MAX_RESULTS,
  campaignRegion: env.CAMPAIGN_REGION,
  logger,
  metrics,
  ...(guard?.services.length ? { availability: availabilityMetric(guard) } : {}),
  // A delete the brake holds is not parked again for the brake's window.
  ...(env.DELETE_BRAKE_WINDOW_SECONDS === undefined
    ? {}
    : { heldDeleteSeconds: env.DELETE_BRAKE_WINDOW_SECONDS }),
});
