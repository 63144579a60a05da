import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { BreakerEvents } from '../resilience/circuit-breaker';
import type { CensusEvents } from '../resilience/instance-census';
import type { BrakeEvents } from '../resilience/mass-delete-brake';
import type { PlatformGuard } from '../resilience/platform-guard';
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

/**
 * `PlatformUnavailable` (1 while the service's breaker is open, else 0) once per invocation,
 * per platform service and not per action: one alarm per service whichever function saw it.
 */
export const availabilityMetric = (guard: PlatformGuard) => {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
  return {
    publish: (): void => {
      for (const service of guard.services) {
        metrics.addDimension('PlatformService', service);
        metrics.addMetric(
          'PlatformUnavailable',
          MetricUnit.Count,
          guard.isUnavailable(service) ? 1 : 0,
        );
        metrics.publishStoredMetrics();
      }
    },
  };
};

/** Breaker transitions as log lines an operator can search for. */
/** A failed census check-in: this instance paces at its safe floor until the next one answers. */
export const censusLog = (logger: Logger): CensusEvents => ({
  failed: (service, error) =>
    logger.warn('instance census failed; pacing at the share that is safe with every instance', {
      platformService: service,
      error: error instanceof Error ? error.name : typeof error,
    }),
});

export const breakerLog = (logger: Logger): BreakerEvents => ({
  changed: (service, state) => {
    if (state === 'open')
      logger.warn('circuit breaker open: platform service unavailable', {
        platformService: service,
      });
    else if (state === 'closed')
      logger.info('circuit breaker closed: platform service answers again', {
        platformService: service,
      });
    else logger.info('circuit breaker half-open: probing', { platformService: service });
  },
  storeFailed: (service, error) =>
    logger.warn('circuit breaker state not shared (store failed); this instance decides alone', {
      platformService: service,
      error: error instanceof Error ? error.name : typeof error,
    }),
});

/** The mass-delete brake's trips and store failures as log lines an operator can search for. */
export const brakeLog = (logger: Logger): BrakeEvents => ({
  tripped: (action, state) =>
    logger.error(
      'mass-delete brake tripped: further destructive messages are held until an operator releases or discards them (npm run ops -- brake status)',
      { brakeAction: action, trippedAt: new Date(state.trippedAt ?? 0).toISOString() },
    ),
  storeFailed: (action, error) =>
    logger.warn('mass-delete brake count unavailable; the message is held, not applied uncounted', {
      brakeAction: action,
      error: error instanceof Error ? error.name : typeof error,
    }),
});
