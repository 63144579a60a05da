import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { type ActionName, METRICS_NAMESPACE, SERVICE_NAME } from '../actions';

export { METRICS_NAMESPACE, SERVICE_NAME };

/** Structured JSON logger with the action on every line. */
export const createLogger = (action: ActionName): Logger =>
  new Logger({ serviceName: SERVICE_NAME, persistentKeys: { action } });

/** EMF metrics: Succeeded, AlreadyApplied, Retried, DeadLettered (count), ApiLatency (ms), per action. */
export const createMetrics = (action: ActionName): Metrics => {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
  metrics.setDefaultDimensions({ action });
  return metrics;
};
