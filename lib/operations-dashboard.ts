/**
 * One CloudWatch dashboard for the stack: a row per enabled action with what came in and what
 * became of it, the platform's latency, the queues, and the breaker of the platform service the
 * action calls. Built from the handlers' EMF metrics and the queues' own SQS metrics.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { ActionName, ServiceName } from '../lambdas/actions';
import type { ActionPipeline } from './action-pipeline';
import { actionMetric, platformUnavailableMetric } from './handler-metrics';

/** One enabled action as the dashboard sees it. */
export interface MonitoredPipeline {
  readonly action: ActionName;
  /** The platform service the action calls; its breaker state is shown in the action's row. */
  readonly service: ServiceName;
  readonly pipeline: Pick<ActionPipeline, 'queue' | 'deadLetterQueue' | 'heldQueue'>;
}

export interface OperationsDashboardProps {
  /** The enabled actions, one row each in this order. */
  readonly pipelines: readonly MonitoredPipeline[];
  /**
   * Name of the dashboard.
   * @default `<stack name>-operations`
   */
  readonly dashboardName?: string;
  /**
   * Period of every graphed metric.
   * @default Duration.minutes(1)
   */
  readonly period?: Duration;
}

const WIDGET_HEIGHT = 6;
/** Four graphs per action fill the dashboard's 24 columns. */
const WIDGET_WIDTH = 6;

export class OperationsDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    const period = props.period ?? Duration.minutes(1);

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName ?? `${stackName}-operations`,
    });
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        width: 24,
        height: 4,
        markdown: [
          `# ${stackName} operations`,
          'One row per enabled action: messages received and what became of them (applied = Succeeded + AlreadyApplied, skipped = StaleSkipped + Duplicate, Retried, DeadLettered), the platform API latency (p50, p99), the source queue (visible, and invisible: in flight or waiting for a retry), the dead-letter queue and the age of the oldest message, and the circuit breaker of the platform service the action calls.',
          '**PlatformUnavailable = 1**: the breaker is open or half-open and holds messages back. They wait in their queue and are retried; nothing is lost.',
        ].join('\n\n'),
      }),
    );
    for (const monitored of props.pipelines) {
      this.dashboard.addWidgets(...actionRow(monitored, period));
    }
    const braked = props.pipelines.filter((p) => p.pipeline.heldQueue !== undefined);
    if (braked.length > 0) {
      this.dashboard.addWidgets(
        new cloudwatch.TextWidget({
          width: 24,
          height: 2,
          markdown:
            '## Mass-delete brake\n\n**held > 0**: the brake tripped; destructive messages wait in the held queue. `npm run ops -- brake status`, then `brake release <action>` or `brake discard <action>`.',
        }),
        ...braked.map((monitored) => brakeGraph(monitored, period, Math.floor(24 / braked.length))),
      );
    }
  }
}

/** Held count (the held queue) and the messages held per period (DeletesHeld). */
const brakeGraph = (
  { action, pipeline }: MonitoredPipeline,
  period: Duration,
  width: number,
): cloudwatch.GraphWidget =>
  new cloudwatch.GraphWidget({
    title: `${action}: held by the mass-delete brake`,
    width: Math.max(WIDGET_WIDTH, width),
    height: WIDGET_HEIGHT,
    left: [
      ...(pipeline.heldQueue === undefined
        ? []
        : [
            pipeline.heldQueue.metricApproximateNumberOfMessagesVisible({
              period,
              statistic: cloudwatch.Stats.MAXIMUM,
              label: 'held',
            }),
          ]),
      actionMetric(action, 'DeletesHeld', {
        period,
        statistic: cloudwatch.Stats.SUM,
        label: 'newly held',
      }),
    ],
    leftYAxis: { min: 0, showUnits: false },
  });

const graph = (props: cloudwatch.GraphWidgetProps): cloudwatch.GraphWidget =>
  new cloudwatch.GraphWidget({ width: WIDGET_WIDTH, height: WIDGET_HEIGHT, ...props });

/**
 * Sum of two action metrics. FILL: a minute with only one of them reported still counts it
 * (metric math drops timestamps missing from any operand).
 */
const sumOf = (
  label: string,
  [idA, metricA]: readonly [string, cloudwatch.IMetric],
  [idB, metricB]: readonly [string, cloudwatch.IMetric],
  period: Duration,
): cloudwatch.MathExpression =>
  new cloudwatch.MathExpression({
    label,
    expression: `FILL(${idA}, 0) + FILL(${idB}, 0)`,
    usingMetrics: { [idA]: metricA, [idB]: metricB },
    period,
  });

const actionRow = (
  { action, service, pipeline }: MonitoredPipeline,
  period: Duration,
): cloudwatch.IWidget[] => {
  const count = (name: Parameters<typeof actionMetric>[1], label: string) =>
    actionMetric(action, name, { period, statistic: cloudwatch.Stats.SUM, label });
  const latency = (statistic: string) =>
    actionMetric(action, 'ApiLatency', { period, statistic, label: statistic });
  const maximum = { period, statistic: cloudwatch.Stats.MAXIMUM };

  return [
    graph({
      title: `${action}: messages`,
      left: [
        pipeline.queue.metricNumberOfMessagesReceived({
          period,
          statistic: cloudwatch.Stats.SUM,
          label: 'received',
        }),
        sumOf(
          'applied',
          ['succeeded', count('Succeeded', 'Succeeded')],
          ['alreadyApplied', count('AlreadyApplied', 'AlreadyApplied')],
          period,
        ),
        sumOf(
          'skipped',
          ['staleSkipped', count('StaleSkipped', 'StaleSkipped')],
          ['duplicate', count('Duplicate', 'Duplicate')],
          period,
        ),
        count('Retried', 'retried'),
        count('DeadLettered', 'dead-lettered'),
      ],
      leftYAxis: { min: 0, showUnits: false },
    }),
    graph({
      title: `${action}: platform API latency`,
      left: [latency(cloudwatch.Stats.p(50)), latency(cloudwatch.Stats.p(99))],
      leftYAxis: { min: 0, label: 'ms', showUnits: false },
    }),
    graph({
      title: `${action}: queues`,
      left: [
        pipeline.queue.metricApproximateNumberOfMessagesVisible({ ...maximum, label: 'visible' }),
        // A message reported failed stays invisible until its visibility timeout ends: without
        // this line a backlog waiting for its retry looks like an empty queue.
        pipeline.queue.metricApproximateNumberOfMessagesNotVisible({
          ...maximum,
          label: 'invisible (in flight, retry pending)',
        }),
        pipeline.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          ...maximum,
          label: 'dead-letter queue',
        }),
      ],
      right: [
        pipeline.queue.metricApproximateAgeOfOldestMessage({
          ...maximum,
          label: 'oldest message age (s)',
        }),
      ],
      leftYAxis: { min: 0, showUnits: false },
      rightYAxis: { min: 0, showUnits: false },
    }),
    graph({
      title: `${action}: ${service} circuit breaker`,
      left: [platformUnavailableMetric(service, { ...maximum, label: 'PlatformUnavailable' })],
      leftYAxis: { min: 0, max: 1, showUnits: false },
    }),
  ];
};
