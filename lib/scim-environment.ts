/**
 * The environment of the SCIM function, from the same validated config as the handlers'
 * (`handler-environment.ts`); the runtime checks it at cold start (`lambdas/scim/scim-env.ts`).
 */
import {
  type DeploymentConfig,
  deleteBrakeFor,
  rateSharePerInstance,
  type ScimSettings,
} from './config';
import {
  POWERTOOLS_METRICS_NAMESPACE,
  POWERTOOLS_SERVICE_NAME,
  platformEnvironment,
} from './handler-environment';

export interface ScimResources {
  /** The entity ledger table, which also holds the breaker state (CloudFormation tokens). */
  readonly ledgerTableName: string;
  /** delete-user's held queue, when its mass-delete brake is on. */
  readonly heldQueueUrl?: string | undefined;
}

export const scimEnvironment = (
  config: DeploymentConfig,
  scim: ScimSettings,
  resources: ScimResources,
): Record<string, string> => {
  const brake = deleteBrakeFor(config, 'delete-user');
  if (brake !== undefined && resources.heldQueueUrl === undefined) {
    throw new Error("scim: delete-user's brake is on and SCIM deletes need its held queue");
  }
  return {
    ...platformEnvironment(config),
    LEDGER_TABLE_NAME: resources.ledgerTableName,
    LEDGER_TOMBSTONE_DAYS: String(config.ledger.tombstoneDays),
    BREAKER_TABLE_NAME: resources.ledgerTableName,
    // One add-user instance's share: the SCIM function and the user handlers count each other
    // against the provisioning ceiling in the breaker table, and the stage throttle bounds SCIM.
    PLATFORM_RATE_LIMIT_PER_SECOND: String(
      Math.floor(rateSharePerInstance(config, 'add-user') * 1000) / 1000,
    ),
    PLATFORM_RATE_CEILING_PER_SECOND: String(config.platformRateLimits.provisioning),
    ...(brake === undefined || resources.heldQueueUrl === undefined
      ? {}
      : {
          HELD_QUEUE_URL: resources.heldQueueUrl,
          DELETE_BRAKE_LIMIT: String(brake.limit),
          DELETE_BRAKE_WINDOW_SECONDS: String(brake.windowMinutes * 60),
        }),
    SCIM_TOKEN_SECRET_ID: scim.tokenSecretId,
    SCIM_DEFAULT_USER_TEMPLATE: scim.defaults.userTemplateName,
    SCIM_DEFAULT_CREATE_IN_CLOUD_CONNECT: String(scim.defaults.createInCloudConnect),
    SCIM_MAX_RESULTS: String(scim.maxResults),
    POWERTOOLS_SERVICE_NAME,
    POWERTOOLS_METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: config.logLevel,
    ...(config.sourceMapStackTraces ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
  };
};
