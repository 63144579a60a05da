/**
 * The scenario every measurement shares: the example deployment config's
 * add-or-update-campaign-record function, its environment as the stack sets it, and the
 * messages it consumes.
 */
import { join } from 'node:path';
import type { ActionName } from '../lambdas/actions';
import { isReadAction } from '../lambdas/actions';
import type { PlatformSettings } from '../lambdas/core/platform/platform-settings';
import { type DeploymentConfig, loadConfig } from '../lib/config';
import { handlerEnvironment } from '../lib/handler-environment';
import { OUT_DIR } from './paths';
import type { LambdaShape } from './protocol';

export const CONFIG_NAME = 'example';
export const ACTION = 'add-or-update-campaign-record' satisfies ActionName;

/** Not a real key: the simulator and the fake Secrets Manager both know it. */
export const BENCH_API_KEY = 'bench-api-key-0123456789abcdef';

/** Where nothing listens: a call to SQS or EventBridge fails on loopback instead of leaving the machine. */
const UNREACHABLE = 'http://127.0.0.1:9';

export interface Scenario {
  readonly config: DeploymentConfig;
  readonly action: ActionName;
  readonly batchSize: number;
  /** The event source mapping's `MaximumBatchingWindowInSeconds`. */
  readonly batchingWindowSeconds: number;
  /** The event source mapping's maximum concurrency: batches in flight at once. */
  readonly maxConcurrency: number;
  /** Records of one batch processed at once (the handler's MAX_RECORD_CONCURRENCY default). */
  readonly recordConcurrency: number;
  readonly lambda: LambdaShape;
}

/** Records of one batch the handler processes at once unless MAX_RECORD_CONCURRENCY says otherwise. */
const DEFAULT_RECORD_CONCURRENCY = 10;

/** The simulator's tenant and key: the config's, with the bench's key. */
export const benchTenant = (config: DeploymentConfig) => ({
  apiKey: BENCH_API_KEY,
  platformCode: config.tenant.platformCode,
  companyCode: config.tenant.companyCode,
  environmentName: config.tenant.environmentName,
  secretsRegion: config.apiKey.secretsRegion,
});

export const loadScenario = (): Scenario => {
  const config = loadConfig(CONFIG_NAME);
  const settings = config.actions[ACTION];
  return {
    config,
    action: ACTION,
    batchSize: settings.batchSize,
    batchingWindowSeconds: settings.maxBatchingWindowSeconds,
    maxConcurrency: settings.maxConcurrency,
    recordConcurrency: DEFAULT_RECORD_CONCURRENCY,
    lambda: {
      functionName: `contact-center-sync-${ACTION}`,
      timeoutMs: settings.timeoutSeconds * 1000,
      memoryMiB: settings.memoryMiB,
      region: config.apiKey.secretsRegion,
    },
  };
};

export interface Endpoints {
  readonly simulatorUrl: string;
  readonly secretsManagerUrl: string;
  /** The fake DynamoDB the entity ledger talks to. */
  readonly dynamoDbUrl: string;
}

/** The ledger table's name in the function's environment (the fake DynamoDB takes any name). */
export const BENCH_LEDGER_TABLE = 'bench-entity-ledger';

/**
 * The function's environment: what the stack sets (`handlerEnvironment`, incl. the log level
 * and NODE_OPTIONS), the platform pointed at the simulator, and what Lambda itself provides
 * (region, credentials, function name). Log lines are built and written (to /dev/null); EMF
 * metrics only with `metrics`, as deployed (the cold start has always been measured without).
 */
export const lambdaEnvironment = (
  scenario: Scenario,
  endpoints: Endpoints,
  options: { readonly metrics?: boolean } = {},
): Record<string, string> => {
  const { config, action, lambda } = scenario;
  // Without the deployment's request ceiling: it would measure the configured pacing (1.7/s
  // per add-or-update instance in the example), not the handler.
  const { PLATFORM_RATE_LIMIT_PER_SECOND: _pacing, ...stackEnvironment } = handlerEnvironment(
    config,
    action,
    {
      deadLetterQueueUrl: `${UNREACHABLE}/123456789012/${action}-dlq`,
      sourceQueueUrl: `${UNREACHABLE}/123456789012/${action}`,
      breakerTableName: BENCH_LEDGER_TABLE,
      ...(isReadAction(action)
        ? { resultBusName: 'bench-result-bus' }
        : { ledgerTableName: BENCH_LEDGER_TABLE }),
    },
  );
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    ...stackEnvironment,
    API_BASE_URL: endpoints.simulatorUrl,
    ...(options.metrics ? {} : { POWERTOOLS_METRICS_DISABLED: 'true' }),
    AWS_REGION: lambda.region,
    AWS_DEFAULT_REGION: lambda.region,
    AWS_ACCESS_KEY_ID: 'AKIABENCHFAKEKEY0000',
    AWS_SECRET_ACCESS_KEY: 'bench-fake-secret-access-key',
    AWS_SESSION_TOKEN: 'bench-fake-session-token',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.secretsManagerUrl,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamoDbUrl,
    AWS_ENDPOINT_URL_SQS: UNREACHABLE,
    AWS_ENDPOINT_URL_EVENTBRIDGE: UNREACHABLE,
    AWS_EC2_METADATA_DISABLED: 'true',
    // No shared config files: only the environment configures the SDK, as in Lambda.
    AWS_CONFIG_FILE: join(OUT_DIR, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(OUT_DIR, 'no-aws-credentials'),
    AWS_LAMBDA_FUNCTION_NAME: lambda.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(lambda.memoryMiB),
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  };
};

/** A valid add-or-update message; `id` makes its record distinct. */
export const benchMessage = (id: string, n: number): Record<string, unknown> => ({
  correlationId: `bench-${id}`,
  campaignName: 'Bench-Campaign',
  clientId: `BENCH-${id}`,
  previewRecordData: [
    { key: 'FirstName', value: 'Bench', displayOrder: 1 },
    { key: 'LastName', value: `Load-${id}`, displayOrder: 2 },
    { key: 'mobilePhone', value: `+4930${String(n).padStart(7, '0')}`, displayOrder: 3 },
    { key: 'ItemTimeZone', value: 'Europe/Berlin' },
    { key: 'crm_link', value: `https://crm.example.com/leads/${id}`, displayOrder: 4 },
  ],
});

/** `count` SQS bodies, ids `<prefix>-0` … */
export const benchBodies = (prefix: string, count: number): string[] =>
  Array.from({ length: count }, (_, n) => JSON.stringify(benchMessage(`${prefix}-${n}`, n)));

export const platformSettings = (scenario: Scenario, baseUrl: string): PlatformSettings => ({
  platformCode: scenario.config.tenant.platformCode,
  companyCode: scenario.config.tenant.companyCode,
  environmentName: scenario.config.tenant.environmentName,
  baseUrl,
  campaignRegion: scenario.config.campaignRegion,
  secretsRegion: scenario.config.apiKey.secretsRegion,
});
