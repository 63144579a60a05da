/**
 * One alarm per platform service the enabled actions call: its circuit breaker is holding
 * messages back. Nothing is lost meanwhile (messages wait in their queues and are retried), so
 * the alarm tells operators to look at the platform, not to act on the integration.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { ServiceName } from '../lambdas/actions';
import { platformUnavailableMetric } from './handler-metrics';

export interface PlatformAvailabilityAlarmsProps {
  /** Platform services to watch; duplicates are ignored. */
  readonly services: readonly ServiceName[];
  /**
   * Where the alarms notify (alarm and OK).
   * @default - no actions: the alarms show only in the CloudWatch console
   */
  readonly alarmActions?: readonly cloudwatch.IAlarmAction[];
}

export class PlatformAvailabilityAlarms extends Construct {
  /** The alarm of each watched platform service. */
  readonly alarms: ReadonlyMap<ServiceName, cloudwatch.Alarm>;

  constructor(scope: Construct, id: string, props: PlatformAvailabilityAlarmsProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    const alarmActions = props.alarmActions ?? [];

    const alarms = new Map<ServiceName, cloudwatch.Alarm>();
    for (const service of new Set(props.services)) {
      const alarm = new cloudwatch.Alarm(
        this,
        `${service.charAt(0).toUpperCase()}${service.slice(1)}UnavailableAlarm`,
        {
          alarmDescription: `${stackName} platform ${service} service unavailable: the circuit breaker is open; messages wait in their queues and are retried within the retry window. Check the platform's status; no action is needed to recover.`,
          metric: platformUnavailableMetric(service, { period: Duration.minutes(1) }),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          // 2 of 3 minutes: one stray half-open minute does not page, a real outage does.
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
          // During an outage rescheduled messages arrive sparsely, so minutes without data say
          // nothing about the breaker; only reported values change the state.
          treatMissingData: cloudwatch.TreatMissingData.IGNORE,
        },
      );
      alarm.addAlarmAction(...alarmActions);
      alarm.addOkAction(...alarmActions);
      alarms.set(service, alarm);
    }
    this.alarms = alarms;
  }
}
