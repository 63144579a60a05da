/**
 * The operations dashboard (a row per enabled action over the handlers' metric contract) and
 * the PlatformUnavailable alarm of each platform service an enabled action calls.
 * Synthesized without esbuild: only the template matters here.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ACTION_NAMES,
  type ActionName,
  actionDefinition,
  BRAKED_ACTIONS,
  METRICS_NAMESPACE,
  SERVICE_NAME,
  type ServiceName,
} from '../../lambdas/actions';
import { type DeploymentConfig, loadConfig } from '../../lib/config';
import type { ContactCenterSyncStack } from '../../lib/contact-center-sync-stack';
import {
  configWith,
  logicalId,
  platformServicesOf,
  propertiesOf,
  resourcesOfType,
  type Synthesized,
  synth,
  withoutReconciliation,
} from './synth';

const SERVICES: readonly ServiceName[] = ['realtime', 'provisioning'];

/** Per-action metrics the handlers emit (dimensions service + action), as the contract names them. */
const ACTION_METRICS = [
  'Succeeded',
  'AlreadyApplied',
  'StaleSkipped',
  'Duplicate',
  'Retried',
  'DeadLettered',
  'ApiLatency',
] as const;

const serviceOf = (action: ActionName): ServiceName => actionDefinition(action).service;

/** A config with only the actions that call `service` enabled. */
const onlyServiceConfig = (service: ServiceName): DeploymentConfig =>
  configWith({
    actions: Object.fromEntries(
      ACTION_NAMES.filter((action) => serviceOf(action) !== service).map((action) => [
        action,
        { enabled: false },
      ]),
    ),
  });

// --- The dashboard body, parsed --------------------------------------------------------------

/** One line of a graph: a metric, or (no namespace) a math expression over hidden metrics. */
interface GraphedMetric {
  readonly namespace?: string;
  readonly metricName?: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly options: {
    readonly stat?: string;
    readonly id?: string;
    readonly label?: string;
    readonly expression?: string;
    readonly visible?: boolean;
  };
}

interface Widget {
  readonly type: string;
  readonly properties: {
    readonly title?: string;
    readonly markdown?: string;
    readonly metrics?: readonly unknown[][];
  };
}

/**
 * Tokens (queue names, the region) sit inside JSON strings of the joined body, so a
 * placeholder without quotes keeps the JSON valid and still names what it stands for.
 */
const placeholder = (part: unknown): string => {
  if (typeof part === 'string') return part;
  const token = part as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (token.Ref !== undefined) return `<Ref ${token.Ref}>`;
  if (token['Fn::GetAtt'] !== undefined) return `<GetAtt ${token['Fn::GetAtt'].join('.')}>`;
  return '<token>';
};

/** The widgets of the template's only dashboard. */
const dashboardWidgets = (template: Template): Widget[] => {
  const dashboards = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Dashboard'));
  if (dashboards.length !== 1) throw new Error(`expected one dashboard, got ${dashboards.length}`);
  const body = dashboards[0]?.Properties?.DashboardBody as
    | string
    | { 'Fn::Join': [string, unknown[]] };
  const json = typeof body === 'string' ? body : body['Fn::Join'][1].map(placeholder).join('');
  return (JSON.parse(json) as { widgets: Widget[] }).widgets;
};

/** `[namespace, name, dim, value, …, options?]` or `[options]` (an expression). */
const parseLine = (line: readonly unknown[]): GraphedMetric => {
  const last = line.at(-1);
  const options =
    typeof last === 'object' && last !== null ? (last as GraphedMetric['options']) : {};
  const [namespace, metricName, ...dims] = line.filter((item) => typeof item === 'string');
  const dimensions: Record<string, string> = {};
  for (let i = 0; i + 1 < dims.length; i += 2)
    dimensions[dims[i] as string] = dims[i + 1] as string;
  return { namespace, metricName, dimensions, options };
};

/** Every line of the graphs titled `<action>: …`. */
const rowOf = (widgets: readonly Widget[], action: ActionName): GraphedMetric[] =>
  widgets
    .filter((w) => w.type === 'metric' && w.properties.title?.startsWith(`${action}: `))
    .flatMap((w) => (w.properties.metrics ?? []).map(parseLine));

const queueName = (queue: IConstruct): string => `<GetAtt ${logicalId(queue)}.QueueName>`;

/** Metric names an expression of the row adds up, found through the ids it references. */
const summedBy = (row: readonly GraphedMetric[], label: string): string[] => {
  const expression = row.find((line) => line.options.label === label)?.options.expression;
  if (expression === undefined) throw new Error(`no expression labelled ${label}`);
  const ids = new Set(expression.match(/\b[a-z]\w*\b/g));
  return row
    .filter((line) => line.options.id !== undefined && ids.has(line.options.id))
    .map((line) => line.metricName ?? '')
    .sort();
};

// --- The platform availability alarms --------------------------------------------------------

interface AlarmProperties {
  readonly Dimensions: readonly { Name: string; Value: string }[];
  readonly [key: string]: unknown;
}

/** The PlatformUnavailable alarms of the template, by the platform service they watch. */
const platformAlarms = (template: Template): Map<string, AlarmProperties> => {
  const found = template.findResources('AWS::CloudWatch::Alarm', {
    Properties: { MetricName: 'PlatformUnavailable' },
  });
  return new Map(
    Object.values(found).map(({ Properties }) => {
      const properties = Properties as AlarmProperties;
      const service = properties.Dimensions.find((d) => d.Name === 'PlatformService')?.Value;
      return [service ?? '<none>', properties];
    }),
  );
};

// --- Tests -----------------------------------------------------------------------------------

const exampleConfig = withoutReconciliation(loadConfig('example'));
const EXAMPLE_ENABLED = ACTION_NAMES.filter((action) => exampleConfig.actions[action].enabled);

let exampleSynth: Synthesized | undefined;
/** The example config's stack, synthesized once for the whole file. */
const example = (): Synthesized => {
  exampleSynth ??= synth(exampleConfig);
  return exampleSynth;
};

describe('operations dashboard of the example config', () => {
  let stack: ContactCenterSyncStack;
  let template: Template;
  let widgets: Widget[];

  beforeAll(() => {
    ({ stack, template } = example());
    widgets = dashboardWidgets(template);
  });

  it('is one dashboard named after the stack', () => {
    // Assess
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', {
      DashboardName: Match.stringLikeRegexp(`^${stack.stackName}-`),
      DashboardBody: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
    });
    expect(logicalId(stack.dashboard.dashboard)).toBe(
      Object.keys(resourcesOfType(template, 'AWS::CloudWatch::Dashboard'))[0],
    );
  });

  it('opens with a text widget explaining that the breaker holds messages back, losing none', () => {
    // Act
    const [first] = widgets;

    // Assess
    expect(first?.type).toBe('text');
    expect(first?.properties.markdown).toMatch(/PlatformUnavailable = 1/);
    expect(first?.properties.markdown).toMatch(/breaker .*holds messages back/);
    expect(first?.properties.markdown).toMatch(/wait in their queue/);
    expect(first?.properties.markdown).toMatch(/nothing is lost/);
  });

  it('has a row for every enabled action and no other', () => {
    // Act
    const titled = widgets.flatMap((w) => (w.properties.title ? [w.properties.title] : []));

    // Assess
    expect(EXAMPLE_ENABLED.length).toBeGreaterThan(0);
    for (const title of titled) {
      expect(EXAMPLE_ENABLED.some((action) => title.startsWith(`${action}: `))).toBe(true);
    }
    for (const action of EXAMPLE_ENABLED) expect(rowOf(widgets, action).length).toBeGreaterThan(0);
  });

  describe.each(EXAMPLE_ENABLED)('row of %s', (action) => {
    let row: GraphedMetric[];

    beforeAll(() => {
      row = rowOf(widgets, action);
    });

    it('graphs every per-action metric of the contract with the service and action dimensions', () => {
      // Act
      const graphed = row.filter((line) => line.namespace === METRICS_NAMESPACE);

      // Assess
      for (const metricName of ACTION_METRICS) {
        expect(graphed).toContainEqual(
          expect.objectContaining({
            metricName,
            dimensions: { service: SERVICE_NAME, action },
          }),
        );
      }
    });

    it('adds Succeeded + AlreadyApplied as applied and StaleSkipped + Duplicate as skipped', () => {
      // Assess
      expect(summedBy(row, 'applied')).toEqual(['AlreadyApplied', 'Succeeded']);
      expect(summedBy(row, 'skipped')).toEqual(['Duplicate', 'StaleSkipped']);
      for (const name of ['Succeeded', 'AlreadyApplied', 'StaleSkipped', 'Duplicate']) {
        expect(row.find((line) => line.metricName === name)?.options.stat).toBe('Sum');
      }
    });

    it('shows API latency at p50 and p99', () => {
      // Act
      const stats = row
        .filter((line) => line.metricName === 'ApiLatency')
        .map((l) => l.options.stat);

      // Assess
      expect(stats).toEqual(expect.arrayContaining(['p50', 'p99']));
    });

    it('shows received, visible, not visible (retry pending) and oldest age of its queue, and its DLQ depth', () => {
      // Prepare
      const pipeline = stack.pipelines.get(action);
      if (!pipeline) throw new Error(`${action} is enabled`);
      const sqsLine = (metricName: string, queue: IConstruct) =>
        expect.objectContaining({
          namespace: 'AWS/SQS',
          metricName,
          dimensions: { QueueName: queueName(queue) },
        });

      // Assess
      for (const metricName of [
        'NumberOfMessagesReceived',
        'ApproximateNumberOfMessagesVisible',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateAgeOfOldestMessage',
      ]) {
        expect(row).toContainEqual(sqsLine(metricName, pipeline.queue));
      }
      expect(row).toContainEqual(
        sqsLine('ApproximateNumberOfMessagesVisible', pipeline.deadLetterQueue),
      );
    });

    it('shows the held count and newly held messages only if the action has a mass-delete brake', () => {
      // Prepare
      const heldQueue = stack.pipelines.get(action)?.heldQueue;

      // Act
      const held = row.filter(
        (line) =>
          line.metricName === 'DeletesHeld' ||
          (heldQueue !== undefined && line.dimensions.QueueName === queueName(heldQueue)),
      );

      // Assess
      expect(heldQueue !== undefined).toBe(BRAKED_ACTIONS.includes(action));
      expect(held).toEqual(
        heldQueue === undefined
          ? []
          : [
              expect.objectContaining({
                namespace: 'AWS/SQS',
                metricName: 'ApproximateNumberOfMessagesVisible',
                options: expect.objectContaining({ label: 'held', stat: 'Maximum' }),
              }),
              expect.objectContaining({
                namespace: METRICS_NAMESPACE,
                metricName: 'DeletesHeld',
                dimensions: { service: SERVICE_NAME, action },
                options: expect.objectContaining({ stat: 'Sum' }),
              }),
            ],
      );
    });

    it('shows the breaker state (PlatformUnavailable, Maximum) of its platform service only', () => {
      // Act
      const breaker = row.filter((line) => line.metricName === 'PlatformUnavailable');

      // Assess
      expect(breaker).toEqual([
        expect.objectContaining({
          namespace: METRICS_NAMESPACE,
          dimensions: { service: SERVICE_NAME, PlatformService: serviceOf(action) },
          options: expect.objectContaining({ stat: 'Maximum' }),
        }),
      ]);
    });
  });
});

describe('platform availability alarms', () => {
  describe.each(SERVICES)('of the %s service (example config)', (service) => {
    let stack: ContactCenterSyncStack;
    let template: Template;

    beforeAll(() => {
      ({ stack, template } = example());
    });

    it('fires on PlatformUnavailable >= 1 (Maximum) in 2 of 3 one-minute periods, ignoring missing data', () => {
      // Assess
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: METRICS_NAMESPACE,
        MetricName: 'PlatformUnavailable',
        Dimensions: Match.arrayWith([{ Name: 'PlatformService', Value: service }]),
        Statistic: 'Maximum',
        Period: 60,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        TreatMissingData: 'ignore',
      });
    });

    it('is exposed by the stack and watches the service and platform service dimensions', () => {
      // Prepare
      const exposed = stack.platformAlarms.alarms.get(service);
      if (!exposed) throw new Error(`no ${service} alarm exposed`);

      // Act
      const alarm = propertiesOf<AlarmProperties>(
        template,
        'AWS::CloudWatch::Alarm',
        logicalId(exposed),
      );

      // Assess
      expect(alarm.MetricName).toBe('PlatformUnavailable');
      expect(alarm.Dimensions).toHaveLength(2);
      expect(alarm.Dimensions).toEqual(
        expect.arrayContaining([
          { Name: 'service', Value: SERVICE_NAME },
          { Name: 'PlatformService', Value: service },
        ]),
      );
    });

    it('says what is happening and that no action is needed to recover', () => {
      // Assess
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'PlatformUnavailable',
        Dimensions: Match.arrayWith([{ Name: 'PlatformService', Value: service }]),
        AlarmDescription: `${stack.stackName} platform ${service} service unavailable: the circuit breaker is open; messages wait in their queues and are retried within the retry window. Check the platform's status; no action is needed to recover.`,
      });
    });
  });

  it('notify an existing alarm topic on alarm and on OK', () => {
    // Prepare
    const topicArn = 'arn:aws:sns:eu-central-1:111122223333:ops-alerts';

    // Act
    const { template } = synth(configWith({ alarms: { topicArn } }));

    // Assess
    const alarms = platformAlarms(template);
    expect([...alarms.keys()].sort()).toEqual([...SERVICES].sort());
    for (const alarm of alarms.values()) {
      expect(alarm).toMatchObject({ AlarmActions: [topicArn], OKActions: [topicArn] });
    }
  });

  it('have no actions when no alarm destination is configured', () => {
    // Act
    const { template } = synth(configWith());

    // Assess
    const alarms = platformAlarms(template);
    expect(alarms.size).toBe(SERVICES.length);
    for (const alarm of alarms.values()) {
      expect(alarm.AlarmActions).toBeUndefined();
      expect(alarm.OKActions).toBeUndefined();
    }
  });

  describe.each(SERVICES)('with only the %s actions enabled', (service) => {
    let stack: ContactCenterSyncStack;
    let template: Template;
    const other = SERVICES.find((s) => s !== service);

    beforeAll(() => {
      ({ stack, template } = synth(onlyServiceConfig(service)));
    });

    it(`alarms on that service's breaker and not on the other's`, () => {
      // Act
      const alarms = platformAlarms(template);

      // Assess
      expect([...alarms.keys()]).toEqual([service]);
      expect([...stack.platformAlarms.alarms.keys()]).toEqual([service]);
      expect(platformServicesOf([...stack.pipelines.keys()])).toEqual([service]);
      template.resourcePropertiesCountIs(
        'AWS::CloudWatch::Alarm',
        { Dimensions: Match.arrayWith([{ Name: 'PlatformService', Value: other }]) },
        0,
      );
    });

    it('has dashboard rows for exactly those actions, graphing no breaker of the other service', () => {
      // Prepare
      const enabled = ACTION_NAMES.filter((action) => serviceOf(action) === service);

      // Act
      const widgets = dashboardWidgets(template);
      const rowActions = new Set(
        widgets.flatMap((w) => (w.properties.title ? [w.properties.title.split(':')[0]] : [])),
      );
      const breakers = widgets
        .flatMap((w) => w.properties.metrics ?? [])
        .map(parseLine)
        .filter((line) => line.metricName === 'PlatformUnavailable');

      // Assess
      expect([...rowActions].sort()).toEqual([...enabled].sort());
      expect(breakers.length).toBeGreaterThan(0);
      for (const line of breakers) expect(line.dimensions.PlatformService).toBe(service);
    });
  });
});
