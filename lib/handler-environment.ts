/**
 * The handler environment contract (issue 3), filled from the deployment config. The stack sets
 * exactly this on every function, so a test can hold it against what the runtime reads.
 */
import {
  type ActionName,
  actionDefinition,
  isReadAction,
  METRICS_NAMESPACE,
  SERVICE_NAME,
} from '../lambdas/actions';
import { type DeploymentConfig, deleteBrakeFor, rateSharePerInstance } from './config';

/** The runtime's own names, so logs and metrics match whether or not the variables are set. */
export const POWERTOOLS_SERVICE_NAME = SERVICE_NAME;
export const POWERTOOLS_METRICS_NAMESPACE = METRICS_NAMESPACE;

/**
 * Every variable a handler may get; `RESULT_EVENT_BUS_NAME` only for the read actions, the
 * `LEDGER_*` ones only for the write actions, `HELD_QUEUE_URL` and `DELETE_BRAKE_*` only for the
 * destructive actions whose brake is on, `NODE_OPTIONS` only with `sourceMapStackTraces`.
 */
export const HANDLER_ENVIRONMENT_VARIABLES = [
  'PLATFORM_CODE',
  'COMPANY_CODE',
  'ENVIRONMENT_NAME',
  'API_BASE_URL',
  'CAMPAIGN_REGION',
  'API_KEY_SECRET_ID',
  'API_KEY_SECRETS_REGION',
  'API_KEY_MAX_AGE_SECONDS',
  'DEAD_LETTER_QUEUE_URL',
  'MAX_RECEIVE_COUNT',
  'SOURCE_QUEUE_URL',
  'RETRY_WINDOW_SECONDS',
  'RETRY_FIRST_DELAY_SECONDS',
  'RETRY_MAX_DELAY_SECONDS',
  'BREAKER_TABLE_NAME',
  'PLATFORM_RATE_LIMIT_PER_SECOND',
  'PLATFORM_RATE_CEILING_PER_SECOND',
  'RESULT_EVENT_BUS_NAME',
  'LEDGER_TABLE_NAME',
  'LEDGER_TOMBSTONE_DAYS',
  'HELD_QUEUE_URL',
  'DELETE_BRAKE_LIMIT',
  'DELETE_BRAKE_WINDOW_SECONDS',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_LOG_LEVEL',
  'NODE_OPTIONS',
] as const;

export type HandlerEnvironmentVariable = (typeof HANDLER_ENVIRONMENT_VARIABLES)[number];

/** Resources the environment points at; known only once the pipeline creates them. */
export interface HandlerResources {
  /** URL of the action's own DLQ (a CloudFormation token in the stack). */
  readonly deadLetterQueueUrl: string;
  /** URL of the queue the function consumes (failed messages are rescheduled there). */
  readonly sourceQueueUrl: string;
  /** Table of the shared circuit-breaker state (the ledger table). */
  readonly breakerTableName: string;
  /** Name (or ARN, for a bus in another account) of the bus read results are published on. */
  readonly resultBusName?: string | undefined;
  /** Name of the entity ledger table (write actions; a CloudFormation token in the stack). */
  readonly ledgerTableName?: string | undefined;
  /** URL of the queue the mass-delete brake parks held messages in (braked actions). */
  readonly heldQueueUrl?: string | undefined;
}

/** The platform, the tenant and the API key: every function that calls the platform gets these. */
export const platformEnvironment = (config: DeploymentConfig) => ({
  PLATFORM_CODE: config.tenant.platformCode,
  COMPANY_CODE: config.tenant.companyCode,
  ENVIRONMENT_NAME: config.tenant.environmentName,
  API_BASE_URL: config.platform.baseUrl,
  CAMPAIGN_REGION: config.campaignRegion,
  API_KEY_SECRET_ID: config.apiKey.secretId,
  API_KEY_SECRETS_REGION: config.apiKey.secretsRegion,
  API_KEY_MAX_AGE_SECONDS: String(config.apiKey.maxAgeSeconds),
});

/** The environment of one action's function. Throws if a read action gets no result bus. */
export const handlerEnvironment = (
  config: DeploymentConfig,
  action: ActionName,
  resources: HandlerResources,
): Record<string, string> => {
  const environment: { [name in HandlerEnvironmentVariable]?: string } = {
    ...platformEnvironment(config),
    DEAD_LETTER_QUEUE_URL: resources.deadLetterQueueUrl,
    MAX_RECEIVE_COUNT: String(config.actions[action].maxReceiveCount),
    SOURCE_QUEUE_URL: resources.sourceQueueUrl,
    RETRY_WINDOW_SECONDS: String(config.retry.windowHours * 3600),
    RETRY_FIRST_DELAY_SECONDS: String(config.retry.firstDelaySeconds),
    RETRY_MAX_DELAY_SECONDS: String(config.retry.maxDelaySeconds),
    BREAKER_TABLE_NAME: resources.breakerTableName,
    // Rounded down to 3 decimals: the instances together stay under the ceiling.
    PLATFORM_RATE_LIMIT_PER_SECOND: String(
      Math.floor(rateSharePerInstance(config, action) * 1000) / 1000,
    ),
    // The instances count each other in the breaker table and share this between them.
    PLATFORM_RATE_CEILING_PER_SECOND: String(
      config.platformRateLimits[actionDefinition(action).service],
    ),
    POWERTOOLS_SERVICE_NAME,
    POWERTOOLS_METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: config.logLevel,
    // Stack traces point at the TypeScript sources through the bundled source maps, at a cost to
    // every cold start, so only when the deployment asks for it.
    ...(config.sourceMapStackTraces ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
  };
  if (isReadAction(action)) {
    if (resources.resultBusName === undefined) {
      throw new Error(`${action} is a read action and needs a result bus`);
    }
    environment.RESULT_EVENT_BUS_NAME = resources.resultBusName;
  } else {
    if (resources.ledgerTableName === undefined) {
      throw new Error(`${action} changes the platform and needs the entity ledger table`);
    }
    environment.LEDGER_TABLE_NAME = resources.ledgerTableName;
    environment.LEDGER_TOMBSTONE_DAYS = String(config.ledger.tombstoneDays);
  }
  const brake = deleteBrakeFor(config, action);
  if (brake !== undefined) {
    if (resources.heldQueueUrl === undefined) {
      throw new Error(`${action} has a mass-delete brake and needs its held queue`);
    }
    environment.HELD_QUEUE_URL = resources.heldQueueUrl;
    environment.DELETE_BRAKE_LIMIT = String(brake.limit);
    environment.DELETE_BRAKE_WINDOW_SECONDS = String(brake.windowMinutes * 60);
  }
  return environment as Record<string, string>;
};
