import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, SERVICE_NAME } from './identity';
import type { Observer } from './observer';

export { METRICS_NAMESPACE, SERVICE_NAME };

/** Structured JSON logger with the action on every line. */
export const createLogger = (action: string): Logger =>
  new Logger({ serviceName: SERVICE_NAME, persistentKeys: { action } });

/** EMF metrics: Succeeded, AlreadyApplied, Retried, DeadLettered (count), ApiLatency (ms), per action. */
export const createMetrics = (action: string): Metrics => {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
  metrics.setDefaultDimensions({ action });
  return metrics;
};

/** Every platform request as the ApiLatency metric and a debug log line (no key, no body). */
export const requestObserver = (logger: Logger, metrics: Metrics): Observer => ({
  attempt: (attempt) => {
    metrics.addMetric('ApiLatency', MetricUnit.Milliseconds, attempt.latencyMs);
    logger.debug('platform attempt', { ...attempt });
  },
});
