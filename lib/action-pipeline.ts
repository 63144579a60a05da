/**
 * Everything one action needs: source queue + DLQ, the bundled handler with its log group,
 * the SQS event source mapping, the EventBridge rule into the queue, least-privilege IAM and
 * alarms. One instance per enabled action.
 */
import { fileURLToPath } from 'node:url';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ActionName } from '../lambdas/actions';
import { BREAKER_KEY_PREFIX } from '../lambdas/deployment-contract';
import { grantApiKeyRead } from './api-key-grant';
import { DLQ_RETENTION_DAYS } from './config';
import type { EntityLedgerTable } from './entity-ledger-table';
import { HANDLER_FUNCTION_PROPS, handlerRole } from './handler-function';

/** Lets a braked function park the deletes its brake holds in `heldQueue` (SCIM's too). */
export const grantHoldDeletes = (role: iam.IRole, heldQueue: sqs.IQueue): void => {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'HoldDeletes',
      actions: ['sqs:SendMessage'],
      resources: [heldQueue.queueArn],
    }),
  );
};

/** Handler entry file of an action. */
export const handlerEntry = (action: ActionName): string =>
  fileURLToPath(new URL(`../lambdas/handlers/${action}.ts`, import.meta.url));

/**
 * Visibility timeout that lets a batch finish (and be retried in-process) before SQS hands
 * the same messages to another invocation: AWS recommends 6 × the function timeout, plus the
 * batching window during which messages are already in flight.
 */
export const visibilityTimeoutFor = (timeout: Duration, maxBatchingWindow: Duration): Duration =>
  Duration.seconds(6 * timeout.toSeconds() + maxBatchingWindow.toSeconds());

/** A held message this old raises its own alarm: the held queue keeps messages 14 days. */
export const HELD_AGE_ALARM_DAYS = 10;

/** Receives of a held message (by the ops CLI) after which SQS moves it to the DLQ. */
export const HELD_MAX_RECEIVE_COUNT = 1000;

/** Resources of the pipeline the handler environment points at. */
export interface PipelineResources {
  readonly deadLetterQueueUrl: string;
  readonly sourceQueueUrl: string;
  readonly breakerTableName: string;
  /** Set for the actions that change the platform (they apply events in order). */
  readonly ledgerTableName?: string;
  /** Set for the actions with a mass-delete brake: where held messages are parked. */
  readonly heldQueueUrl?: string;
}

export interface ActionPipelineProps {
  /** The action: names the handler entry, the rule's `detail-type` and the resources. */
  readonly action: ActionName;
  /**
   * Handler entry file exporting `handler`.
   * @default `lambdas/handlers/<action>.ts`
   */
  readonly entry?: string;
  /**
   * The function's environment, built from the pipeline's own resources (its DLQ URL).
   * The stack passes `handlerEnvironment(config, action, …)`.
   */
  readonly environment: (resources: PipelineResources) => Record<string, string>;
  /** Bus the action's rule listens on. */
  readonly eventBus: events.IEventBus;
  /** Event `source` values the rule accepts (with `detail-type` = the action name). */
  readonly allowedSources: readonly string[];
  /**
   * IAM resource of the API key secret: a complete ARN, or `…:secret:<name>-??????` for a name.
   */
  readonly apiKeySecretArn: string;
  /**
   * Region of the API key secret; scopes `kms:Decrypt` to Secrets Manager there.
   */
  readonly apiKeySecretsRegion: string;
  /**
   * Customer-managed KMS key of the secret; the function may decrypt with it via Secrets Manager.
   * @default - the secret uses the AWS managed key (no KMS grant needed)
   */
  readonly apiKeyKmsKeyArn?: string;
  /**
   * Bus read results are published on; the function may `events:PutEvents` to it.
   * @default - no publishing permission (write actions)
   */
  readonly resultBus?: events.IEventBus;
  /**
   * The entity ledger the function claims and commits entities in (write actions).
   * @default - no ledger access (read actions)
   */
  readonly ledger?: EntityLedgerTable;
  /**
   * The table holding the shared circuit-breaker state (the ledger table); the function may
   * read and update only the breaker items.
   */
  readonly breakerTable: EntityLedgerTable;
  /**
   * A mass-delete brake: a held queue its destructive messages are parked in once the brake
   * trips (needs `ledger`, which keeps the brake's count), and alarms while it holds any.
   * @default false
   */
  readonly massDeleteBrake?: boolean;
  /** Source queue retention: longer than the retry window. */
  readonly retentionPeriod: Duration;
  /*
   * The settings below have no defaults here: the stack passes every one from the validated
   * config, whose schema is the single place their defaults live.
   */
  /** Messages per invocation. */
  readonly batchSize: number;
  /** How long the event source mapping gathers a batch (0 s: none). */
  readonly maxBatchingWindow: Duration;
  /** Most concurrent invocations the SQS event source mapping starts (2..1000). */
  readonly maxConcurrency: number;
  /** Function timeout; the queue's visibility timeout is 6 × this + the batching window. */
  readonly timeout: Duration;
  /** Function memory in MiB. */
  readonly memorySize: number;
  /** Receives before SQS moves a message to the DLQ; also `MAX_RECEIVE_COUNT` of the handler. */
  readonly maxReceiveCount: number;
  /** EventBridge retries of a failed delivery to the queue. */
  readonly eventRetryAttempts: number;
  /** Oldest event EventBridge still retries delivering. */
  readonly maxEventAge: Duration;
  /** Retention of the function's log group. */
  readonly logRetention: logs.RetentionDays;
  /** Where the alarms notify (alarm and OK); empty: alarms without actions. */
  readonly alarmActions: readonly cloudwatch.IAlarmAction[];
  /** The source-queue age alarm fires when the oldest message is older than this. */
  readonly oldestMessageAgeThreshold: Duration;
}

export class ActionPipeline extends Construct {
  /** Source queue: producers send the action message (or EventBridge delivers the event). */
  readonly queue: sqs.Queue;
  /** Dead letters of the queue, of the handler (with reason attributes) and of the rule target. */
  readonly deadLetterQueue: sqs.Queue;
  /** Messages the mass-delete brake holds until an operator releases or discards them. */
  readonly heldQueue?: sqs.Queue;
  readonly function: nodejs.NodejsFunction;
  readonly logGroup: logs.LogGroup;
  readonly rule: events.Rule;
  readonly alarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: ActionPipelineProps) {
    super(scope, id);
    const { action, timeout, maxBatchingWindow, maxReceiveCount } = props;

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      // SQS-managed SSE: encrypted at rest with no key policy to keep in step for the
      // EventBridge and Lambda principals that write here; no customer key is required.
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(DLQ_RETENTION_DAYS),
    });

    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: props.retentionPeriod,
      visibilityTimeout: visibilityTimeoutFor(timeout, maxBatchingWindow),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount },
    });

    if (props.massDeleteBrake === true) {
      if (props.ledger === undefined) {
        throw new Error(
          `${action}: massDeleteBrake needs the ledger, which keeps the brake's count`,
        );
      }
      // Held for the longest SQS allows: the operator decides, and the alarms fire from the first.
      // Only the ops CLI receives from it; a message it received 1000 times without moving it
      // (a broken release loop) lands in the DLQ rather than cycling on.
      this.heldQueue = new sqs.Queue(this, 'HeldQueue', {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: HELD_MAX_RECEIVE_COUNT },
      });
    }

    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention,
    });

    const { role, allow } = handlerRole(this, 'Role', {
      description: `contact-center-sync ${action} handler`,
      logGroup: this.logGroup,
    });
    grantApiKeyRead(role, {
      secretArn: props.apiKeySecretArn,
      kmsKeyArn: props.apiKeyKmsKeyArn,
      secretsRegion: props.apiKeySecretsRegion,
    });
    allow({
      sid: 'SendDeadLetters',
      actions: ['sqs:SendMessage'],
      resources: [this.deadLetterQueue.queueArn],
    });
    if (this.heldQueue !== undefined) grantHoldDeletes(role, this.heldQueue);
    // Also the mass-delete brake's count (`brake#<action>` items) of the destructive actions.
    if (props.ledger !== undefined) {
      props.ledger.grantItems(role);
    } else {
      // Writes reach these items through the ledger grant above; reads get only them.
      allow({
        sid: 'CircuitBreakerState',
        actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        resources: [props.breakerTable.table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${BREAKER_KEY_PREFIX}*`] },
        },
      });
    }
    if (props.resultBus !== undefined) {
      allow({
        sid: 'PublishResults',
        actions: ['events:PutEvents'],
        resources: [props.resultBus.eventBusArn],
      });
    }

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      ...HANDLER_FUNCTION_PROPS,
      entry: props.entry ?? handlerEntry(action),
      memorySize: props.memorySize,
      timeout,
      role,
      logGroup: this.logGroup,
      description: `contact-center-sync: ${action}`,
      environment: props.environment({
        deadLetterQueueUrl: this.deadLetterQueue.queueUrl,
        sourceQueueUrl: this.queue.queueUrl,
        breakerTableName: props.breakerTable.table.tableName,
        ...(props.ledger === undefined ? {} : { ledgerTableName: props.ledger.table.tableName }),
        ...(this.heldQueue === undefined ? {} : { heldQueueUrl: this.heldQueue.queueUrl }),
      }),
    });

    this.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: props.batchSize,
        maxBatchingWindow: maxBatchingWindow.toSeconds() > 0 ? maxBatchingWindow : undefined,
        maxConcurrency: props.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );

    this.rule = new events.Rule(this, 'Rule', {
      eventBus: props.eventBus,
      description: `Routes ${action} events to its queue`,
      eventPattern: {
        detailType: [action],
        source: [...props.allowedSources],
      },
    });
    this.rule.addTarget(
      new targets.SqsQueue(this.queue, {
        // Undeliverable events land in the action's DLQ too: one place to read and redrive.
        deadLetterQueue: this.deadLetterQueue,
        retryAttempts: props.eventRetryAttempts,
        maxEventAge: props.maxEventAge,
      }),
    );

    this.alarms = this.createAlarms(action, props.oldestMessageAgeThreshold, props.alarmActions);
    this.acknowledgeFindings();
  }

  /** cdk-nag Serverless findings that this design answers another way, and how. */
  private acknowledgeFindings(): void {
    const acknowledge = (scope: Construct, finding: string, reason: string) =>
      Validations.of(scope).acknowledge({ id: `Serverless::Serverless-${finding}`, reason });
    acknowledge(
      this.deadLetterQueue,
      'SQSRedrivePolicy',
      'It is the dead-letter queue: its messages are read and redriven by an operator, never consumed, so a further redrive would only move them.',
    );
    acknowledge(
      this.function,
      'LambdaDLQ',
      'The function is invoked only by its SQS event source mapping (synchronously), where DeadLetterConfig never applies: failed records go to the queue redrive policy, and the handler writes refused ones to the DLQ with reason attributes.',
    );
    acknowledge(
      this.function,
      'LambdaEventSourceMappingDestination',
      'An SQS event source mapping takes no on-failure destination (only stream and Kafka sources do): records that keep failing go to the DLQ through the queue redrive policy.',
    );
    acknowledge(
      this.function,
      'LambdaTracing',
      'Traced by structured logs and metrics (Powertools) keyed by the message id; X-Ray would add a Resource::* grant to every role for a one-hop path (queue -> function -> platform).',
    );
  }

  private createAlarms(
    action: ActionName,
    oldestMessageAgeThreshold: Duration,
    alarmActions: readonly cloudwatch.IAlarmAction[],
  ): cloudwatch.Alarm[] {
    const period = Duration.minutes(1);
    const common = {
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    };
    const stackName = Stack.of(this).stackName;
    const alarm = (id: string, description: string, metric: cloudwatch.IMetric, threshold = 0) =>
      new cloudwatch.Alarm(this, id, {
        ...common,
        alarmDescription: `${stackName} ${action}: ${description}`,
        metric,
        threshold,
      });
    // Queue depths and ages: the worst minute counts, not the average.
    const visible = (queue: sqs.IQueue) =>
      queue.metricApproximateNumberOfMessagesVisible({
        period,
        statistic: cloudwatch.Stats.MAXIMUM,
      });
    const oldestAge = (queue: sqs.IQueue) =>
      queue.metricApproximateAgeOfOldestMessage({ period, statistic: cloudwatch.Stats.MAXIMUM });
    const alarms = [
      alarm(
        'DeadLetterAlarm',
        'messages in the dead-letter queue. Read the reason attributes, fix, then redrive (docs/deploy.md).',
        visible(this.deadLetterQueue),
      ),
      alarm(
        'OldestMessageAlarm',
        `the oldest queued message is older than ${oldestMessageAgeThreshold.toSeconds()} s; the handler is failing, throttled or too slow.`,
        oldestAge(this.queue),
        oldestMessageAgeThreshold.toSeconds(),
      ),
      alarm(
        'ErrorsAlarm',
        'the handler failed whole invocations (not single records).',
        this.function.metricErrors({ period, statistic: cloudwatch.Stats.SUM }),
      ),
      alarm(
        'ThrottlesAlarm',
        'invocations were throttled (function or account concurrency limit reached).',
        this.function.metricThrottles({ period, statistic: cloudwatch.Stats.SUM }),
      ),
    ];
    if (this.heldQueue !== undefined) {
      alarms.push(
        alarm(
          'HeldMessagesAlarm',
          `the mass-delete brake tripped and holds messages. See what is held with \`npm run ops -- brake status\`, then \`brake release ${action}\` or \`brake discard ${action}\` (docs/operations.md).`,
          visible(this.heldQueue),
        ),
        alarm(
          'HeldTooLongAlarm',
          `a held message is ${HELD_AGE_ALARM_DAYS} days old; the held queue drops messages after 14 days. Release or discard them now.`,
          oldestAge(this.heldQueue),
          Duration.days(HELD_AGE_ALARM_DAYS).toSeconds(),
        ),
      );
    }
    for (const each of alarms) {
      each.addAlarmAction(...alarmActions);
      each.addOkAction(...alarmActions);
    }
    return alarms;
  }
}
