/**
 * Reconciliation in the stack: the bucket producers drop an export and then its manifest into,
 * the rule that starts a run when a manifest arrives, and the run itself: a state machine that
 * plans in a Lambda function (looping while a long plan hands over between invocations) and,
 * when the scope auto-applies and the plan is within the gates, sends the repairs to the action
 * queues with a Distributed Map. Run history and metrics come from the function; the alarms
 * (no successful run in N days, a held plan) and the dashboard widgets are here.
 */
import { fileURLToPath } from 'node:url';
import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../lambdas/actions';
import { PLAN_STEP_OUTCOME, type ReconcileScope } from '../lambdas/deployment-contract';
import { grantApiKeyRead } from './api-key-grant';
import { RECONCILE_BUNDLING } from './bundling';
import { DLQ_RETENTION_DAYS } from './config';
import { type EntityLedgerTable, LEDGER_ITEM_ACTIONS } from './entity-ledger-table';
import { HANDLER_FUNCTION_PROPS, handlerRole } from './handler-function';

/** Where producers drop manifests; a run starts for each `*.manifest.json` under it. */
export const INCOMING_PREFIX = 'incoming/';
export const MANIFEST_SUFFIX = '.manifest.json';
/** Where the runs keep plans, reports, repairs and a long plan's answers. */
export const RUNS_PREFIX = 'runs/';
const ACCESS_LOG_PREFIX = 'reconcile-bucket/';

export interface ReconciliationProps {
  /** The configured scopes (`reconcile.scopes`); each gets its alarms. */
  readonly scopes: Readonly<Record<string, ReconcileScope>>;
  /** The environment of the run's function (`reconcileEnvironment`), given the bucket's name. */
  readonly environment: (bucketName: string) => Record<string, string>;
  /** The deployment's table: the ledger the plan reads, the run history and breaker items it writes. */
  readonly ledger: EntityLedgerTable;
  /** Repair action → its source queue; the Distributed Map may send to these only. */
  readonly repairQueues: ReadonlyMap<string, sqs.IQueue>;
  readonly apiKeySecretArn: string;
  /** The secret's customer-managed key, when it has one. @default none */
  readonly apiKeyKmsKeyArn?: string | undefined;
  /** Region of the secret, for the key's `kms:ViaService` condition. */
  readonly apiKeySecretsRegion: string;
  /** Repair messages sent at once (the Distributed Map's MaxConcurrency). */
  readonly applyConcurrency: number;
  readonly logRetention: logs.RetentionDays;
  readonly alarmActions: readonly cloudwatch.IAlarmAction[];
  /** Retries of the rule's `StartExecution` before the event goes to its dead-letter queue. */
  readonly startRetryAttempts: number;
  /** Longest the rule keeps retrying one event before it goes to its dead-letter queue. */
  readonly startMaxEventAge: Duration;
  /**
   * The bucket when the stack is deleted. Exports and plans are copies of the sources' data.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

export class Reconciliation extends Construct {
  readonly bucket: s3.Bucket;
  /** Server access logs of the bucket. */
  readonly accessLogs: s3.Bucket;
  readonly function: nodejs.NodejsFunction;
  readonly stateMachine: sfn.StateMachine;
  readonly rule: events.Rule;
  /** Manifest events whose run could not be started, after the rule's retries. */
  readonly startDeadLetterQueue: sqs.Queue;
  readonly alarms: readonly cloudwatch.Alarm[];
  /** Drift found, repaired and held, per scope: for the operations dashboard. */
  readonly widgets: readonly cloudwatch.IWidget[];

  constructor(scope: Construct, id: string, props: ReconciliationProps) {
    super(scope, id);
    if (Object.keys(props.scopes).length === 0) {
      throw new Error('Reconciliation: scopes must name at least one scope (reconcile.scopes)');
    }
    if (!Number.isInteger(props.applyConcurrency) || props.applyConcurrency < 1) {
      throw new Error(
        `Reconciliation: applyConcurrency must be a whole number ≥ 1, got ${props.applyConcurrency}`,
      );
    }
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.accessLogs = new s3.Bucket(this, 'AccessLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy,
    });
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      lifecycleRules: [
        // Exports are copies of HR and CRM data: kept long enough to plan and compare again.
        { prefix: INCOMING_PREFIX, expiration: Duration.days(90) },
        // Plans and reports are the run history's evidence; the ledger's run items live 400 days.
        { prefix: RUNS_PREFIX, expiration: Duration.days(400) },
        {
          noncurrentVersionExpiration: Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
      removalPolicy,
    });
    // Server access logs through a bucket policy for the logging service, whatever the CDK
    // feature flags (without `serverAccessLogsUseBucketPolicy` the L2 would use a legacy ACL).
    (this.bucket.node.defaultChild as s3.CfnBucket).loggingConfiguration = {
      destinationBucketName: this.accessLogs.bucketName,
      logFilePrefix: ACCESS_LOG_PREFIX,
    };
    this.accessLogs.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'S3ServerAccessLogs',
        principals: [new iam.ServicePrincipal('logging.s3.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [this.accessLogs.arnForObjects(`${ACCESS_LOG_PREFIX}*`)],
        conditions: {
          ArnLike: { 'aws:SourceArn': this.bucket.bucketArn },
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
        },
      }),
    );
    // EventBridge notifications as a plain bucket property: `eventBridgeEnabled` would add a
    // custom-resource function (with an AWS managed policy) only to set this one switch.
    (this.bucket.node.defaultChild as s3.CfnBucket).addPropertyOverride(
      'NotificationConfiguration.EventBridgeConfiguration.EventBridgeEnabled',
      true,
    );

    const logGroup = new logs.LogGroup(this, 'FunctionLogs', { retention: props.logRetention });
    const { role, allow } = handlerRole(this, 'FunctionRole', {
      description: 'contact-center-sync reconcile run',
      logGroup,
    });
    grantApiKeyRead(role, {
      secretArn: props.apiKeySecretArn,
      kmsKeyArn: props.apiKeyKmsKeyArn,
      secretsRegion: props.apiKeySecretsRegion,
    });
    allow({
      sid: 'ReadExportsAndRuns',
      actions: ['s3:GetObject'],
      resources: [
        this.bucket.arnForObjects(`${INCOMING_PREFIX}*`),
        this.bucket.arnForObjects(`${RUNS_PREFIX}*`),
      ],
    });
    allow({
      sid: 'WriteRuns',
      actions: ['s3:PutObject'],
      resources: [this.bucket.arnForObjects(`${RUNS_PREFIX}*`)],
    });
    // A missing object answers 403 instead of 404 without ListBucket; the run asks for one (a
    // long plan's answers) that is usually not there.
    allow({
      sid: 'ListRuns',
      actions: ['s3:ListBucket'],
      resources: [this.bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [`${RUNS_PREFIX}*`] } },
    });
    allow({
      sid: 'LedgerAndRunHistory',
      // Scan lists the users the ledger knows were created here (their keys are hashes).
      actions: [...LEDGER_ITEM_ACTIONS, 'dynamodb:Scan'],
      resources: [props.ledger.table.tableArn],
    });

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      ...HANDLER_FUNCTION_PROPS,
      entry: fileURLToPath(new URL('../lambdas/handlers/reconcile-run.ts', import.meta.url)),
      // Holds an export and the platform's side of the scope in memory.
      memorySize: 2048,
      timeout: Duration.minutes(15),
      role,
      logGroup,
      description: 'contact-center-sync: reconcile run (plan, applied)',
      environment: props.environment(this.bucket.bucketName),
      bundling: RECONCILE_BUNDLING,
    });

    this.stateMachine = this.createStateMachine(props);
    this.rule = new events.Rule(this, 'ManifestArrived', {
      description: 'Starts a reconcile run when a manifest lands in the bucket',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: {
          bucket: { name: [this.bucket.bucketName] },
          object: { key: [{ wildcard: `${INCOMING_PREFIX}*${MANIFEST_SUFFIX}` }] },
        },
      },
    });
    // Retried and kept like every action rule's events: a run that could not start is a missed
    // reconciliation, so it is alarmed on and can be redriven by hand (a copy of the event).
    this.startDeadLetterQueue = new sqs.Queue(this, 'StartDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(DLQ_RETENTION_DAYS),
    });
    this.rule.addTarget(
      new targets.SfnStateMachine(this.stateMachine, {
        deadLetterQueue: this.startDeadLetterQueue,
        retryAttempts: props.startRetryAttempts,
        maxEventAge: props.startMaxEventAge,
      }),
    );

    const { alarms, widgets } = this.createMonitoring(props);
    this.alarms = alarms;
    this.widgets = widgets;
    this.suppressFindings();
  }

  /** Each wildcard cdk-nag finds, and why it is as narrow as it can be. */
  private suppressFindings(): void {
    const bucket = this.logicalId(this.bucket);
    const run = this.logicalId(this.stateMachine);
    const acknowledge = (finding: string, reason: string) =>
      Validations.of(this).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[${finding}]`,
        reason,
      });
    for (const prefix of [INCOMING_PREFIX, RUNS_PREFIX]) {
      acknowledge(
        `Resource::<${bucket}.Arn>/${prefix}*`,
        `Exports and runs are objects named by producers and runs: the run function reads and writes only under ${prefix} of its one bucket.`,
      );
    }
    acknowledge(
      `Resource::<${this.logicalId(this.function)}.Arn>:*`,
      "CDK's grant to invoke the run function includes its versions (<arn>:*); it is the only function the state machine calls.",
    );
    acknowledge(
      'Resource::*',
      'X-Ray tracing and CloudWatch Logs delivery of the state machine: these actions take no resource.',
    );
    acknowledge(
      `Resource::arn:<AWS::Partition>:s3:::<${bucket}>/*`,
      "The Distributed Map reads the repairs file of its run, whose key is chosen per run; CDK's item-reader grant covers the one bucket's objects.",
    );
    const deadLetters =
      "It is the dead-letter queue of the ManifestArrived rule's target: its events are read and a run started by hand, never consumed.";
    for (const id of [
      'AwsSolutions::AwsSolutions-SQS3',
      'Serverless::Serverless-SQSRedrivePolicy',
    ]) {
      Validations.of(this.startDeadLetterQueue).acknowledge({ id, reason: deadLetters });
    }
    Validations.of(this.function).acknowledge({
      id: 'Serverless::Serverless-LambdaDLQ',
      reason:
        'The state machine invokes the function synchronously (DeadLetterConfig applies to asynchronous invocations only); a failed step fails the execution, which the run history and the NoSuccessfulRun alarm show.',
    });
    Validations.of(this.function).acknowledge({
      id: 'Serverless::Serverless-LambdaTracing',
      reason:
        'The state machine is traced and logs every transition; the function writes its run history and metrics, and X-Ray inside it would add a Resource::* grant for a single call.',
    });
    const execution = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${run}"}]}]}`;
    for (const suffix of [':*', '/*:*']) {
      acknowledge(
        `Resource::${execution}${suffix}`,
        'The Distributed Map describes and stops its own map runs, whose ids exist only at run time; the grant is limited to this state machine.',
      );
    }
  }

  private logicalId(construct: Construct): string {
    return Stack.of(this).getLogicalId(construct.node.defaultChild as CfnElement);
  }

  private createStateMachine(props: ReconciliationProps): sfn.StateMachine {
    const invoke = (id: string, payload: Record<string, unknown>, resultPath: string) =>
      new tasks.LambdaInvoke(this, id, {
        lambdaFunction: this.function,
        payload: sfn.TaskInput.fromObject(payload),
        payloadResponseOnly: true,
        resultPath,
        retryOnServiceExceptions: true,
      });
    const plan = invoke(
      'Plan',
      {
        step: 'plan',
        bucket: sfn.JsonPath.stringAt('$.detail.bucket.name'),
        key: sfn.JsonPath.stringAt('$.detail.object.key'),
        runName: sfn.JsonPath.stringAt('$$.Execution.Name'),
      },
      '$.plan',
    );
    const sendRepairs = new sfn.DistributedMap(this, 'SendRepairs', {
      comment:
        'Each repair message to its action queue; the handlers order and pace the platform calls',
      itemReader: new sfn.S3JsonLItemReader({
        bucket: this.bucket,
        key: sfn.JsonPath.stringAt('$.plan.repairsKey'),
      }),
      maxConcurrency: props.applyConcurrency,
      resultPath: sfn.JsonPath.DISCARD,
    });
    sendRepairs.itemProcessor(
      new tasks.CallAwsService(this, 'SendRepair', {
        service: 'sqs',
        action: 'sendMessage',
        parameters: {
          QueueUrl: sfn.JsonPath.stringAt('$.queueUrl'),
          MessageBody: sfn.JsonPath.stringAt('$.body'),
        },
        iamResources: [...props.repairQueues.values()].map((queue) => queue.queueArn),
      }).addRetry({
        errors: ['States.ALL'],
        maxAttempts: 6,
        backoffRate: 2,
        interval: Duration.seconds(1),
      }),
    );
    const applied = invoke(
      'Applied',
      { step: 'applied', plan: sfn.JsonPath.objectAt('$.plan') },
      '$.applied',
    );
    const next = new sfn.Choice(this, 'WhatNext')
      .when(sfn.Condition.stringEquals('$.plan.outcome', PLAN_STEP_OUTCOME.continue), plan)
      .when(
        sfn.Condition.stringEquals('$.plan.outcome', PLAN_STEP_OUTCOME.apply),
        sendRepairs.next(applied).next(new sfn.Succeed(this, 'Repaired')),
      )
      .when(
        sfn.Condition.stringEquals('$.plan.outcome', PLAN_STEP_OUTCOME.refused),
        new sfn.Fail(this, 'Refused', { errorPath: '$.plan.code', causePath: '$.plan.message' }),
      )
      .otherwise(
        new sfn.Succeed(this, 'PlannedOnly', {
          comment: 'no changes, or a plan that waits for a person',
        }),
      );
    const logGroup = new logs.LogGroup(this, 'StateMachineLogs', { retention: props.logRetention });
    return new sfn.StateMachine(this, 'Run', {
      definitionBody: sfn.DefinitionBody.fromChainable(plan.next(next)),
      // A long plan loops for hours at the reconcile share of the provisioning ceiling.
      timeout: Duration.hours(24),
      tracingEnabled: true,
      // Every state transition, without its input and output (exports hold personal data).
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
  }

  private createMonitoring(props: ReconciliationProps) {
    const stackName = Stack.of(this).stackName;
    const metric = (name: string, scope: string, period: Duration) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        dimensionsMap: { service: 'contact-center-sync', scope },
        statistic: cloudwatch.Stats.SUM,
        period,
      });
    const alarms: cloudwatch.Alarm[] = [];
    const widgets: cloudwatch.IWidget[] = [
      new cloudwatch.TextWidget({
        width: 24,
        height: 2,
        markdown:
          '## Reconciliation\n\nPer scope: drift found by each plan, repairs sent, deletes and plans held for a person (`npm run ops -- reconcile apply <plan> [--allow-deletes N]`).',
      }),
    ];
    for (const [name, scope] of Object.entries(props.scopes)) {
      const day = Duration.days(1);
      const noRun = new cloudwatch.Alarm(this, `NoSuccessfulRun-${name}`, {
        alarmDescription: `${stackName} reconcile scope ${name}: no successful run in ${scope.alarmAfterDays} days. Did the producer stop dropping exports, or do its runs fail (state machine executions)?`,
        metric: metric('ReconcileRunSucceeded', name, day),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: scope.alarmAfterDays,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      });
      const held = new cloudwatch.Alarm(this, `PlanHeld-${name}`, {
        alarmDescription: `${stackName} reconcile scope ${name}: a plan waits for a person (plan-only scope, or deletes beyond the gates). Read its report, then npm run ops -- reconcile apply s3://<bucket>/runs/${name}/<run>/plan.jsonl.`,
        metric: metric('ReconcilePlansHeld', name, Duration.minutes(5)),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      alarms.push(noRun, held);
      widgets.push(
        new cloudwatch.GraphWidget({
          title: `Reconcile ${name}: drift found, repaired, held`,
          width: 24,
          height: 6,
          left: [
            metric('ReconcileDriftFound', name, Duration.hours(1)).with({ label: 'drift found' }),
            metric('ReconcileDriftRepaired', name, Duration.hours(1)).with({
              label: 'repaired (sent)',
            }),
            metric('ReconcileDeletesHeld', name, Duration.hours(1)).with({ label: 'deletes held' }),
            metric('ReconcilePlansHeld', name, Duration.hours(1)).with({ label: 'plans held' }),
          ],
        }),
      );
    }
    // A run that could not start: with a dead-letter queue the event lands there (and counts
    // in InvocationsSentToDlq); FailedInvocations counts it only when the DLQ refused it too.
    alarms.push(
      new cloudwatch.Alarm(this, 'RunNotStarted', {
        alarmDescription: `${stackName} reconcile: a manifest arrived but its run could not be started (the ManifestArrived rule's StartExecution failed after its retries). The event is in the StartDeadLetterQueue; start the run by hand from it.`,
        metric: this.startDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: cloudwatch.Stats.MAXIMUM,
        }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      new cloudwatch.Alarm(this, 'RunStartDropped', {
        alarmDescription: `${stackName} reconcile: the ManifestArrived rule failed to start a run and could not keep the event in its dead-letter queue either; the run is lost. Drop the manifest again.`,
        metric: new cloudwatch.Metric({
          namespace: 'AWS/Events',
          metricName: 'FailedInvocations',
          dimensionsMap: { RuleName: this.rule.ruleName },
          statistic: cloudwatch.Stats.SUM,
          period: Duration.minutes(5),
        }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    for (const each of alarms) {
      each.addAlarmAction(...props.alarmActions);
      each.addOkAction(...props.alarmActions);
    }
    return { alarms, widgets };
  }
}
