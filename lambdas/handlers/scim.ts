import { SQSClient } from '@aws-sdk/client-sqs';
import { deleteUser } from '../actions/delete-user';
import { lambdaClientConfig } from '../core/aws/client-config';
import { ledgerTableClient } from '../core/aws/ledger-table';
import { SecretsManagerApiKeySource } from '../core/aws/secrets-manager-api-key-source';
import { deleteBrakeFor, platformCallerFor } from '../core/entry/platform-wiring';
import { DynamoDbLedgerStore } from '../core/ledger/dynamodb-ledger-store';
import {
  availabilityMetric,
  createLogger,
  createMetrics,
} from '../core/observability/observability';
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
const secret = (secretId: string) =>
  new SecretsManagerApiKeySource({
    secretId,
    secretsRegion: env.API_KEY_SECRETS_REGION,
    maxAgeSeconds: env.API_KEY_MAX_AGE_SECONDS,
    clientConfig,
  });
const { platform, guard } = platformCallerFor(deleteUser.service, env, {
  apiKey: secret(env.API_KEY_SECRET_ID),
  dynamoDb,
  logger,
  metrics,
});
const brake = deleteBrakeFor(deleteUser.name, env, {
  dynamoDb,
  sqs: () => new SQSClient(clientConfig),
  logger,
});

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
