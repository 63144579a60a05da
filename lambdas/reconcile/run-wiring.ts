/**
 * The reconcile function as deployed: its environment, the AWS clients (S3, the ledger table's
 * own DynamoDB client, the API key's secret), the platform caller paced at the reconcile share
 * of each service's ceiling and sharing the services' circuit breakers, and EMF metrics.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { S3Client } from '@aws-sdk/client-s3';
import { AWS_TRANSFER_LIMITS, lambdaClientConfig } from '../core/aws/client-config';
import { DynamoDbBreakerStore } from '../core/aws/dynamodb-breaker-store';
import { ledgerTableClient } from '../core/aws/ledger-table';
import { SecretsManagerApiKeySource } from '../core/aws/secrets-manager-api-key-source';
import { platformSettingsOf } from '../core/entry/runtime-env';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../core/observability/identity';
import { PlatformCaller } from '../core/platform/platform-caller';
import { guardFor } from '../core/resilience/platform-guard';
import { platformReader } from './platform-reader';
import { readRunEnv } from './run-env';
import { createReconcileRun } from './run-function';
import { parseScopes } from './scope';

export const createReconcileFunction = (environment = process.env) => {
  const env = readRunEnv(environment);
  const scopes = parseScopes(env.RECONCILE_SCOPES);
  if (!scopes.success) throw new Error(`RECONCILE_SCOPES: ${scopes.error}`);
  const clientConfig = lambdaClientConfig(environment);
  const ledgerClient = ledgerTableClient(clientConfig);
  const apiKey = new SecretsManagerApiKeySource({
    secretId: env.API_KEY_SECRET_ID,
    secretsRegion: env.API_KEY_SECRETS_REGION,
    maxAgeSeconds: env.API_KEY_MAX_AGE_SECONDS,
    clientConfig,
  });
  const breakers = new DynamoDbBreakerStore({
    tableName: env.LEDGER_TABLE_NAME,
    client: ledgerClient,
  });
  const callerFor = (service: 'realtime' | 'provisioning') =>
    new PlatformCaller(
      platformSettingsOf(env),
      apiKey,
      {},
      {
        guard: guardFor(service, {
          store: breakers,
          ceilingPerSecond:
            service === 'realtime'
              ? env.RECONCILE_READ_RATE_REALTIME
              : env.RECONCILE_READ_RATE_PROVISIONING,
        }),
      },
    );
  // Once per container, not per invocation: each caller's pacing (what throttling taught it)
  // carries over to the next invocation of a plan that takes several.
  const callers = { realtime: callerFor('realtime'), provisioning: callerFor('provisioning') };
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
  return createReconcileRun({
    s3: new S3Client({ ...clientConfig, requestHandler: AWS_TRANSFER_LIMITS }),
    bucket: env.RECONCILE_BUCKET,
    tableName: env.LEDGER_TABLE_NAME,
    ledgerClient,
    scopes: scopes.scopes,
    campaignRegion: env.CAMPAIGN_REGION,
    // A reader per plan: it counts the plan's reads.
    reader: (kind) => platformReader(callers[kind === 'users' ? 'provisioning' : 'realtime']),
    queueUrls: env.REPAIR_QUEUE_URLS,
    metrics: {
      publish: (scope, values) => {
        metrics.addDimension('scope', scope);
        for (const [name, value] of Object.entries(values))
          metrics.addMetric(name, MetricUnit.Count, value);
        metrics.publishStoredMetrics();
      },
    },
  });
};
