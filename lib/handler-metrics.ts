/**
 * The handlers' EMF metrics as CloudWatch metrics, for the dashboard and the alarms. Names and
 * dimensions are the handlers' contract (Powertools adds `service` to every metric); they are
 * spelled once here so the infrastructure cannot drift from itself.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import {
  type ActionName,
  METRICS_NAMESPACE,
  SERVICE_NAME,
  type ServiceName,
} from '../lambdas/actions';

/** Per-action metrics (Count, except `ApiLatency` in milliseconds). */
export const ACTION_METRIC_NAMES = [
  'Succeeded',
  'AlreadyApplied',
  'StaleSkipped',
  'Duplicate',
  'Retried',
  'DeadLettered',
  'DeletesHeld',
  'ApiLatency',
] as const;

export type ActionMetricName = (typeof ACTION_METRIC_NAMES)[number];

/** 1 while the platform service's circuit breaker is open or half-open, 0 when closed. */
export const PLATFORM_UNAVAILABLE_METRIC_NAME = 'PlatformUnavailable';

/** Dimension naming the platform service of `PlatformUnavailable`. */
export const PLATFORM_SERVICE_DIMENSION = 'PlatformService';

/** One of an action's metrics. */
export const actionMetric = (
  action: ActionName,
  metricName: ActionMetricName,
  props: cloudwatch.MetricOptions = {},
): cloudwatch.Metric =>
  new cloudwatch.Metric({
    period: Duration.minutes(1),
    statistic: cloudwatch.Stats.SUM,
    ...props,
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: SERVICE_NAME, action },
  });

/** The breaker state of one platform service (Maximum: any open breaker in the period counts). */
export const platformUnavailableMetric = (
  service: ServiceName,
  props: cloudwatch.MetricOptions = {},
): cloudwatch.Metric =>
  new cloudwatch.Metric({
    period: Duration.minutes(1),
    statistic: cloudwatch.Stats.MAXIMUM,
    ...props,
    namespace: METRICS_NAMESPACE,
    metricName: PLATFORM_UNAVAILABLE_METRIC_NAME,
    dimensionsMap: { service: SERVICE_NAME, [PLATFORM_SERVICE_DIMENSION]: service },
  });
