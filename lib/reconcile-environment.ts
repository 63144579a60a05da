/**
 * The environment of the reconcile function, from the same validated config as the handlers'
 * (`handler-environment.ts`); the runtime checks it at cold start (`lambdas/reconcile/run-env.ts`).
 */
import type { DeploymentConfig } from './config';
import {
  POWERTOOLS_METRICS_NAMESPACE,
  POWERTOOLS_SERVICE_NAME,
  platformEnvironment,
} from './handler-environment';

export interface ReconcileResources {
  readonly bucketName: string;
  readonly ledgerTableName: string;
  /** Repair action → its queue URL (CloudFormation tokens). */
  readonly queueUrls: Readonly<Record<string, string>>;
}

export const reconcileEnvironment = (
  config: DeploymentConfig,
  resources: ReconcileResources,
): Record<string, string> => {
  const share = config.reconcile.platformShare;
  const rate = (service: 'realtime' | 'provisioning') =>
    String(Math.floor(config.platformRateLimits[service] * share * 1000) / 1000);
  // Names are added by the scope parser again; the config's own keys are the names.
  const scopes = Object.fromEntries(
    Object.entries(config.reconcile.scopes).map(([key, { name: _name, ...scope }]) => [key, scope]),
  );
  return {
    ...platformEnvironment(config),
    LEDGER_TABLE_NAME: resources.ledgerTableName,
    RECONCILE_BUCKET: resources.bucketName,
    RECONCILE_SCOPES: JSON.stringify(scopes),
    REPAIR_QUEUE_URLS: JSON.stringify(resources.queueUrls),
    RECONCILE_READ_RATE_REALTIME: rate('realtime'),
    RECONCILE_READ_RATE_PROVISIONING: rate('provisioning'),
    POWERTOOLS_SERVICE_NAME,
    POWERTOOLS_METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: config.logLevel,
  };
};
