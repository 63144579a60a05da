import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { ActionName } from '../actions';

/** Service name on every log line and metric; POWERTOOLS_SERVICE_NAME overrides it. */
export const SERVICE_NAME = 'contact-center-sync';
/** CloudWatch namespace of the EMF metrics; POWERTOOLS_METRICS_NAMESPACE overrides it. */
export const METRICS_NAMESPACE = 'ContactCenterSync';

/** Structured JSON logger with the action on every line. */
export const createLogger = (action: ActionName): Logger =>
  new Logger({ serviceName: SERVICE_NAME, persistentKeys: { action } });

/** EMF metrics: Succeeded, AlreadyApplied, Retried, DeadLettered (count), ApiLatency (ms), per action. */
export const createMetrics = (action: ActionName): Metrics => {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
  metrics.setDefaultDimensions({ action });
  return metrics;
};
