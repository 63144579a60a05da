/**
 * One deployment environment: the event bus (created or imported), one ActionPipeline per
 * enabled action, the alarm topic, the operations dashboard, the platform availability alarms,
 * and outputs operators and producers need.
 */
import {
  ArnFormat,
  CfnOutput,
  Duration,
  Stack,
  type StackProps,
  Tags,
  Validations,
} from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { ACTIONS, type ActionName, actionDefinition, isReadAction } from '../lambdas/actions';
import { repairActionsOf } from '../lambdas/deployment-contract';
import { ActionPipeline } from './action-pipeline';
import {
  allowedSourcesFor,
  type DeploymentConfig,
  defaultEventBusName,
  deleteBrakeFor,
  parseSecretArn,
  scimSettingsOf,
  sourceQueueRetentionSeconds,
} from './config';
import { EntityLedgerTable } from './entity-ledger-table';
import { handlerEnvironment } from './handler-environment';
import { type MonitoredPipeline, OperationsDashboard } from './operations-dashboard';
import { PlatformAvailabilityAlarms } from './platform-availability-alarms';
import { reconcileEnvironment } from './reconcile-environment';
import { Reconciliation } from './reconciliation';
import { ScimApi } from './scim-api';
import { scimEnvironment } from './scim-environment';
import {
  actionOutputKeys,
  EVENT_BUS_OUTPUT_KEY,
  LEDGER_TABLE_OUTPUT_KEY,
  pascalCase,
  RECONCILE_BUCKET_OUTPUT_KEY,
  RECONCILE_STATE_MACHINE_OUTPUT_KEY,
  SCIM_URL_OUTPUT_KEY,
} from './stack-outputs';

export interface ContactCenterSyncStackProps extends StackProps {
  /** Validated deployment config (`loadConfig`). */
  readonly config: DeploymentConfig;
}

export class ContactCenterSyncStack extends Stack {
  readonly eventBus: events.IEventBus;
  /** The pipelines of the enabled actions. */
  readonly pipelines: ReadonlyMap<ActionName, ActionPipeline>;
  /** The entity ledger of the write actions, which also holds every function's breaker state. */
  readonly ledger: EntityLedgerTable;
  /** Topic the stack created for the alarm e-mail, if any. */
  readonly alarmTopic?: sns.Topic;
  /** Per enabled action: messages, outcomes, latency, queues and its platform breaker. */
  readonly dashboard: OperationsDashboard;
  /** One alarm per platform service an enabled action calls: its circuit breaker is open. */
  readonly platformAlarms: PlatformAvailabilityAlarms;
  /** The bucket, rule and state machine of reconciliation; only with `reconcile.scopes`. */
  readonly reconciliation?: Reconciliation;
  /** The SCIM 2.0 endpoint identity providers provision users through; only with `scim.enabled`. */
  readonly scimApi?: ScimApi;

  constructor(scope: Construct, id: string, props: ContactCenterSyncStackProps) {
    super(scope, id, props);
    const { config } = props;
    Tags.of(this).add('project', 'contact-center-sync');
    Tags.of(this).add('environment', config.tenant.environmentName);

    this.eventBus = this.createOrImportBus(config);
    // Read results go to the bus that carried the request, so one subscription sees both.
    const resultBusName =
      config.eventBus.kind === 'existing-arn' ? config.eventBus.arn : this.eventBus.eventBusName;

    const { topicArn, email } = config.alarms;
    if (email !== undefined) this.alarmTopic = this.createAlarmTopic(email);
    const alarmActions: cloudwatch.IAlarmAction[] = [];
    if (topicArn !== undefined) {
      const imported = sns.Topic.fromTopicArn(this, 'AlarmTopicImported', topicArn);
      alarmActions.push(new cloudwatchActions.SnsAction(imported));
    }
    if (this.alarmTopic) alarmActions.push(new cloudwatchActions.SnsAction(this.alarmTopic));
    const apiKeySecretArn = this.apiKeySecretArn(config);

    // One table for the write actions' entity ledger and every function's circuit breakers.
    const ledger = new EntityLedgerTable(this, 'EntityLedger');
    this.ledger = ledger;

    const pipelines = new Map<ActionName, ActionPipeline>();
    for (const { name: action } of ACTIONS) {
      const settings = config.actions[action];
      if (!settings.enabled) continue;
      const pipeline = new ActionPipeline(this, pascalCase(action), {
        action,
        environment: ({
          deadLetterQueueUrl,
          sourceQueueUrl,
          breakerTableName,
          ledgerTableName,
          heldQueueUrl,
        }) =>
          handlerEnvironment(config, action, {
            deadLetterQueueUrl,
            sourceQueueUrl,
            breakerTableName,
            resultBusName,
            ledgerTableName,
            heldQueueUrl,
          }),
        eventBus: this.eventBus,
        allowedSources: allowedSourcesFor(config, action),
        apiKeySecretArn,
        apiKeySecretsRegion: config.apiKey.secretsRegion,
        apiKeyKmsKeyArn: config.apiKey.kmsKeyArn,
        resultBus: isReadAction(action) ? this.eventBus : undefined,
        ledger: isReadAction(action) ? undefined : ledger,
        breakerTable: ledger,
        massDeleteBrake: deleteBrakeFor(config, action) !== undefined,
        retentionPeriod: Duration.seconds(sourceQueueRetentionSeconds(config.retry.windowHours)),
        batchSize: settings.batchSize,
        maxBatchingWindow: Duration.seconds(settings.maxBatchingWindowSeconds),
        maxConcurrency: settings.maxConcurrency,
        timeout: Duration.seconds(settings.timeoutSeconds),
        memorySize: settings.memoryMiB,
        maxReceiveCount: settings.maxReceiveCount,
        eventRetryAttempts: config.eventDelivery.retryAttempts,
        maxEventAge: Duration.seconds(config.eventDelivery.maxEventAgeSeconds),
        logRetention: config.logRetentionDays as logs.RetentionDays,
        alarmActions,
        oldestMessageAgeThreshold: Duration.seconds(config.alarms.oldestMessageAgeSeconds),
      });
      pipelines.set(action, pipeline);

      const outputKeys = actionOutputKeys(action);
      new CfnOutput(this, outputKeys.queueUrl, {
        description: `${action}: send action messages here`,
        value: pipeline.queue.queueUrl,
      });
      new CfnOutput(this, outputKeys.deadLetterQueueUrl, {
        description: `${action}: dead letters with their reason attributes`,
        value: pipeline.deadLetterQueue.queueUrl,
      });
      new CfnOutput(this, outputKeys.logGroupName, {
        description: `${action}: handler logs`,
        value: pipeline.logGroup.logGroupName,
      });
      if (pipeline.heldQueue !== undefined) {
        new CfnOutput(this, outputKeys.heldQueueUrl, {
          description: `${action}: messages the mass-delete brake holds (npm run ops -- brake status)`,
          value: pipeline.heldQueue.queueUrl,
        });
      }
    }
    this.pipelines = pipelines;

    const monitored: MonitoredPipeline[] = [...pipelines].map(([action, pipeline]) => ({
      action,
      service: actionDefinition(action).service,
      pipeline,
    }));
    this.dashboard = new OperationsDashboard(this, 'OperationsDashboard', {
      pipelines: monitored,
    });
    this.platformAlarms = new PlatformAvailabilityAlarms(this, 'PlatformAvailability', {
      services: monitored.map(({ service }) => service),
      alarmActions,
    });

    if (Object.keys(config.reconcile.scopes).length > 0) {
      this.reconciliation = this.createReconciliation(config, pipelines, ledger, {
        apiKeySecretArn,
        alarmActions,
      });
    }

    const scim = scimSettingsOf(config);
    if (scim !== undefined) {
      const heldQueue = pipelines.get('delete-user')?.heldQueue;
      this.scimApi = new ScimApi(this, 'Scim', {
        environment: scimEnvironment(config, scim, {
          ledgerTableName: ledger.table.tableName,
          heldQueueUrl: heldQueue?.queueUrl,
        }),
        // The token's secret, like the API key's, is the operator's: referenced, never created,
        // so its value never passes through CloudFormation and rotating it needs no deploy.
        tokenSecretArn: this.secretArn(scim.tokenSecretId, this.region),
        apiKeySecretArn,
        apiKeySecretsRegion: config.apiKey.secretsRegion,
        ...(config.apiKey.kmsKeyArn === undefined
          ? {}
          : { apiKeyKmsKeyArn: config.apiKey.kmsKeyArn }),
        ledger,
        ...(heldQueue === undefined ? {} : { heldQueue }),
        throttleRateLimit: scim.throttle.rateLimit,
        throttleBurstLimit: scim.throttle.burstLimit,
        createAccountLogRole: scim.createApiGatewayLogRole,
        timeout: Duration.seconds(scim.timeoutSeconds),
        memorySize: scim.memoryMiB,
        logRetention: config.logRetentionDays as logs.RetentionDays,
      });
      new CfnOutput(this, SCIM_URL_OUTPUT_KEY, {
        description:
          'SCIM 2.0 base URL: Tenant URL in Entra ID, base URL in Okta (docs/deploy.md#scim)',
        value: this.scimApi.url,
      });
    }

    new CfnOutput(this, EVENT_BUS_OUTPUT_KEY, {
      description: 'Put action events here (detail-type = action name)',
      value: this.eventBus.eventBusName,
    });
    const writesEnabled = ACTIONS.some(
      ({ name }) => config.actions[name].enabled && !isReadAction(name),
    );
    // Only reads enabled: the table holds breaker state only, nothing to trace.
    if (writesEnabled) {
      new CfnOutput(this, LEDGER_TABLE_OUTPUT_KEY, {
        description: 'Entity ledger: what each record and user last saw (npm run ops -- trace)',
        value: ledger.table.tableName,
      });
    }
  }

  /** Needs the repair actions' queues: a scope of a kind whose actions are disabled fails the synth. */
  private createReconciliation(
    config: DeploymentConfig,
    pipelines: ReadonlyMap<ActionName, ActionPipeline>,
    ledger: EntityLedgerTable,
    shared: { apiKeySecretArn: string; alarmActions: cloudwatch.IAlarmAction[] },
  ): Reconciliation {
    const kinds = new Set(Object.values(config.reconcile.scopes).map((scope) => scope.kind));
    const needed: ActionName[] = [...kinds].flatMap((kind) => repairActionsOf(kind));
    const missing = needed.filter((action) => !pipelines.has(action));
    if (missing.length > 0) {
      throw new Error(
        `reconcile.scopes: repairs are sent to ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} disabled in actions`,
      );
    }
    const repairQueues = new Map(
      needed.map((action) => [action, (pipelines.get(action) as ActionPipeline).queue] as const),
    );
    const reconciliation = new Reconciliation(this, 'Reconciliation', {
      scopes: config.reconcile.scopes,
      environment: (bucketName) =>
        reconcileEnvironment(config, {
          bucketName,
          ledgerTableName: ledger.table.tableName,
          queueUrls: Object.fromEntries([...repairQueues].map(([a, q]) => [a, q.queueUrl])),
        }),
      ledger,
      repairQueues,
      apiKeySecretArn: shared.apiKeySecretArn,
      apiKeyKmsKeyArn: config.apiKey.kmsKeyArn,
      apiKeySecretsRegion: config.apiKey.secretsRegion,
      applyConcurrency: config.reconcile.applyConcurrency,
      startRetryAttempts: config.eventDelivery.retryAttempts,
      startMaxEventAge: Duration.seconds(config.eventDelivery.maxEventAgeSeconds),
      logRetention: config.logRetentionDays as logs.RetentionDays,
      alarmActions: shared.alarmActions,
    });
    this.dashboard.dashboard.addWidgets(...reconciliation.widgets);
    new CfnOutput(this, RECONCILE_BUCKET_OUTPUT_KEY, {
      description: 'Drop an export, then its manifest, under incoming/ to start a reconcile run',
      value: reconciliation.bucket.bucketName,
    });
    new CfnOutput(this, RECONCILE_STATE_MACHINE_OUTPUT_KEY, {
      description: 'The reconcile runs (one execution per manifest)',
      value: reconciliation.stateMachine.stateMachineArn,
    });
    return reconciliation;
  }

  private createOrImportBus(config: DeploymentConfig): events.IEventBus {
    const bus = config.eventBus;
    switch (bus.kind) {
      case 'existing-name':
        return events.EventBus.fromEventBusName(this, 'EventBus', bus.name);
      case 'existing-arn':
        return events.EventBus.fromEventBusArn(this, 'EventBus', bus.arn);
      case 'create':
        return new events.EventBus(this, 'EventBus', {
          eventBusName: bus.name ?? defaultEventBusName(config),
          description: 'contact-center-sync: CRM and HR events in, read results out',
        });
    }
  }

  /** Exactly the configured secret: a complete ARN as given, a name with the random suffix. */
  private apiKeySecretArn(config: DeploymentConfig): string {
    return this.secretArn(config.apiKey.secretId, config.apiKey.secretsRegion);
  }

  /** IAM resource of one secret given by complete ARN or by name (in `secretsRegion`). */
  private secretArn(secretId: string, secretsRegion: string): string {
    if (parseSecretArn(secretId)) return secretId;
    // Secrets Manager appends "-" and 6 random characters to a secret's name in its ARN.
    return this.formatArn({
      service: 'secretsmanager',
      region: secretsRegion,
      resource: 'secret',
      resourceName: `${secretId}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }

  /**
   * A topic for the e-mail subscription, encrypted with its own key: CloudWatch cannot publish
   * to a topic encrypted with the AWS managed SNS key, so the key policy must let it in.
   */
  private createAlarmTopic(email: string): sns.Topic {
    const key = new kms.Key(this, 'AlarmTopicKey', {
      description: 'contact-center-sync alarm topic encryption',
      enableKeyRotation: true,
    });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarms',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    );
    const topic = new sns.Topic(this, 'AlarmTopic', {
      displayName: 'contact-center-sync alarms',
      masterKey: key,
      enforceSSL: true,
    });
    // The topic policy that enforceSSL creates replaces SNS's default one, so CloudWatch
    // needs an explicit grant to publish this account's alarms.
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarms',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          ArnLike: {
            'aws:SourceArn': this.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    topic.addSubscription(new subscriptions.EmailSubscription(email));
    Validations.of(topic).acknowledge({
      id: 'Serverless::Serverless-SNSRedrivePolicy',
      reason:
        'An e-mail subscription to alarms: an alarm that cannot be mailed stays in ALARM on the dashboard and in CloudWatch, so a dead-letter queue would hold nothing anyone reads.',
    });
    return topic;
  }
}
