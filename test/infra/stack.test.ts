/**
 * The stack of the committed example config: per enabled action the queue, DLQ, function,
 * event source mapping, rule and alarms; least-privilege IAM; the handler environment contract.
 * Synthesized once, without esbuild: nothing here reads the bundles (the template is the same
 * but for the asset hashes); cdk-cli.test.ts and bundling.test.ts check the real ones.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAMES, type ActionName, BRAKED_ACTIONS, READ_ACTIONS } from '../../lambdas/actions';
import { readRuntimeEnv } from '../../lambdas/core/entry/runtime-env';
import type { ActionPipeline } from '../../lib/action-pipeline';
import { HELD_AGE_ALARM_DAYS, HELD_MAX_RECEIVE_COUNT } from '../../lib/action-pipeline';
import {
  allowedSourcesFor,
  type DeploymentConfig,
  deleteBrakeFor,
  loadConfig,
} from '../../lib/config';
import type { ContactCenterSyncStack } from '../../lib/contact-center-sync-stack';
import { HANDLER_ENVIRONMENT_VARIABLES, handlerEnvironment } from '../../lib/handler-environment';
import { actionOutputKeys } from '../../lib/stack-outputs';
import { denyInsecureTransport, readSecretStatement } from './policy-statements';
import {
  ALL_ACTIONS_ALARM_COUNT,
  actionsOf,
  getAtt,
  identityStatements,
  logicalId,
  type PolicyStatement,
  propertiesOf,
  ref,
  resourcesOfType,
  synth,
  withoutReconciliation,
  withoutScim,
} from './synth';

let config: DeploymentConfig;
let stack: ContactCenterSyncStack;
let template: Template;

beforeAll(() => {
  config = withoutScim(withoutReconciliation(loadConfig('example')));
  ({ stack, template } = synth(config));
});

const pipelineOf = (action: ActionName): ActionPipeline => {
  const pipeline = stack.pipelines.get(action);
  if (!pipeline) throw new Error(`no pipeline for ${action}`);
  return pipeline;
};

/** Statements of the identity policy attached to an action's function role. */
const roleStatements = (action: ActionName): PolicyStatement[] => {
  const role = pipelineOf(action).function.role;
  if (!role) throw new Error(`${action} has no role`);
  return identityStatements(template, logicalId(role));
};

/** Each of the pipeline's two queues has a queue policy holding the statement made for it. */
const expectEachQueuePolicyHolds = (
  pipeline: ActionPipeline,
  statementFor: (queue: ActionPipeline['queue']) => Record<string, unknown>,
): void => {
  for (const queue of [pipeline.queue, pipeline.deadLetterQueue]) {
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [ref(queue)],
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike(statementFor(queue))]) },
    });
  }
};

describe.each(ACTION_NAMES)('%s pipeline', (action) => {
  it('has a source queue with SSE and a redrive policy to its own DLQ', () => {
    // Prepare
    const pipeline = pipelineOf(action);

    // Act
    const queue = resourcesOfType(template, 'AWS::SQS::Queue')[logicalId(pipeline.queue)];

    // Assess
    expect(queue?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 4 * 24 * 3600,
      RedrivePolicy: {
        deadLetterTargetArn: getAtt(pipeline.deadLetterQueue),
        maxReceiveCount: config.actions[action].maxReceiveCount,
      },
    });
  });

  it('has a DLQ with 14 days retention and SSE', () => {
    // Act
    const dlq = resourcesOfType(template, 'AWS::SQS::Queue')[
      logicalId(pipelineOf(action).deadLetterQueue)
    ];

    // Assess
    expect(dlq?.Properties).toMatchObject({
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    });
  });

  it('denies non-TLS access to both queues', () => {
    // Prepare
    const pipeline = pipelineOf(action);

    // Assess
    expectEachQueuePolicyHolds(pipeline, (queue) => ({
      Effect: 'Deny',
      Action: 'sqs:*',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      Resource: getAtt(queue),
    }));
  });

  it('has a Node.js 24 ARM64 function with its own log group', () => {
    // Prepare
    const pipeline = pipelineOf(action);
    const settings = config.actions[action];

    // Assess
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: settings.timeoutSeconds,
      MemorySize: settings.memoryMiB,
      Role: getAtt(pipeline.function.role ?? pipeline),
      LoggingConfig: { LogGroup: ref(pipeline.logGroup) },
      // Source-mapped stack traces cost every cold start: only on request (below).
      Environment: { Variables: Match.objectLike({ NODE_OPTIONS: Match.absent() }) },
    });
    expect(
      resourcesOfType(template, 'AWS::Logs::LogGroup')[logicalId(pipeline.logGroup)]?.Properties,
    ).toEqual({ RetentionInDays: config.logRetentionDays, Tags: expect.any(Array) });
  });

  it('consumes the queue with partial batch responses and the configured scaling', () => {
    // Prepare
    const pipeline = pipelineOf(action);
    const settings = config.actions[action];

    // Assess
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: getAtt(pipeline.queue),
      FunctionName: ref(pipeline.function),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: settings.batchSize,
      ScalingConfig: { MaximumConcurrency: settings.maxConcurrency },
    });
  });

  it('routes its detail-type from the allowed sources to its queue, failed deliveries to its DLQ', () => {
    // Prepare
    const pipeline = pipelineOf(action);

    // Assess
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: ref(stack.eventBus),
      EventPattern: { 'detail-type': [action], source: [...allowedSourcesFor(config, action)] },
      Targets: [
        Match.objectLike({
          Arn: getAtt(pipeline.queue),
          DeadLetterConfig: { Arn: getAtt(pipeline.deadLetterQueue) },
          RetryPolicy: {
            MaximumRetryAttempts: config.eventDelivery.retryAttempts,
            MaximumEventAgeInSeconds: config.eventDelivery.maxEventAgeSeconds,
          },
        }),
      ],
    });
  });

  it('lets only its rule send to its queue and DLQ', () => {
    // Prepare
    const pipeline = pipelineOf(action);

    // Assess
    expectEachQueuePolicyHolds(pipeline, () => ({
      Effect: 'Allow',
      Principal: { Service: 'events.amazonaws.com' },
      Condition: { ArnEquals: { 'aws:SourceArn': getAtt(pipeline.rule) } },
    }));
  });

  it('alarms on DLQ depth, oldest message age, errors and throttles, notifying the topic', () => {
    // Prepare
    const pipeline = pipelineOf(action);
    const topic = stack.alarmTopic;
    if (!topic) throw new Error('the example config gives an alarm e-mail');
    const notify = { AlarmActions: [ref(topic)], OKActions: [ref(topic)] };

    // Assess
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ...notify,
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(pipeline.deadLetterQueue, 'QueueName') }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ...notify,
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(pipeline.queue, 'QueueName') }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: config.alarms.oldestMessageAgeSeconds,
    });
    for (const metric of ['Errors', 'Throttles']) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        ...notify,
        Namespace: 'AWS/Lambda',
        MetricName: metric,
        Dimensions: [{ Name: 'FunctionName', Value: ref(pipeline.function) }],
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
      });
    }
  });

  it('outputs its queue URL and DLQ URL', () => {
    // Prepare
    const pipeline = pipelineOf(action);
    const outputs = template.findOutputs('*');

    // Assess
    expect(Object.values(outputs).map((output) => output.Value)).toEqual(
      expect.arrayContaining([ref(pipeline.queue), ref(pipeline.deadLetterQueue)]),
    );
  });
});

describe('visibility timeout', () => {
  it('is at least 6 × the function timeout + the batching window on every consumed queue', () => {
    // Prepare
    const queues = resourcesOfType(template, 'AWS::SQS::Queue');
    const functions = resourcesOfType(template, 'AWS::Lambda::Function');
    const mappings = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping'));

    // Act
    const checked = mappings.map((mapping) => {
      const props = mapping.Properties as {
        EventSourceArn: { 'Fn::GetAtt': [string, string] };
        FunctionName: { Ref: string };
        MaximumBatchingWindowInSeconds?: number;
      };
      const queue = queues[props.EventSourceArn['Fn::GetAtt'][0]]?.Properties as {
        VisibilityTimeout: number;
      };
      const fn = functions[props.FunctionName.Ref]?.Properties as { Timeout: number };
      return {
        visibility: queue.VisibilityTimeout,
        needed: 6 * fn.Timeout + (props.MaximumBatchingWindowInSeconds ?? 0),
      };
    });

    // Assess
    expect(checked).toHaveLength(ACTION_NAMES.length);
    for (const { visibility, needed } of checked) expect(visibility).toBeGreaterThanOrEqual(needed);
    // The example gives add-user a 60 s timeout, so its queue needs 360 s.
    const addUserQueue = propertiesOf<{ VisibilityTimeout: number }>(
      template,
      'AWS::SQS::Queue',
      logicalId(pipelineOf('add-user').queue),
    );
    expect(addUserQueue.VisibilityTimeout).toBe(360);
  });
});

describe('IAM least privilege', () => {
  it.each(ACTION_NAMES)('%s reads exactly the configured secret', (action) => {
    // Act
    const statements = roleStatements(action).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('secretsmanager:')),
    );

    // Assess
    expect(statements).toEqual([
      readSecretStatement('ReadApiKey', config.apiKey.secretsRegion, config.apiKey.secretId),
    ]);
  });

  it.each(ACTION_NAMES)(
    '%s sends only to its own DLQ (and held queue, if it removes things)',
    (action) => {
      // Act
      const sends = roleStatements(action).filter((s) => actionsOf(s).includes('sqs:SendMessage'));

      // Assess
      const heldQueue = pipelineOf(action).heldQueue;
      expect(sends).toEqual([
        {
          Sid: 'SendDeadLetters',
          Effect: 'Allow',
          Action: 'sqs:SendMessage',
          Resource: getAtt(pipelineOf(action).deadLetterQueue),
        },
        ...(heldQueue === undefined
          ? []
          : [
              {
                Sid: 'HoldDeletes',
                Effect: 'Allow',
                Action: 'sqs:SendMessage',
                Resource: getAtt(heldQueue),
              },
            ]),
      ]);
      expect(heldQueue !== undefined).toBe(BRAKED_ACTIONS.includes(action));
    },
  );

  it.each(ACTION_NAMES)('%s publishes to the bus only if it is a read action', (action) => {
    // Act
    const puts = roleStatements(action).filter((s) => actionsOf(s).includes('events:PutEvents'));

    // Assess
    const expected = READ_ACTIONS.includes(action)
      ? [
          {
            Sid: 'PublishResults',
            Effect: 'Allow',
            Action: 'events:PutEvents',
            Resource: getAtt(stack.eventBus),
          },
        ]
      : [];
    expect(puts).toEqual(expected);
  });

  it.each(ACTION_NAMES)(
    '%s claims and commits in exactly the ledger table if it changes the platform, else touches only the breaker items',
    (action) => {
      // Act
      const ledger = roleStatements(action).filter((s) =>
        actionsOf(s).some((a) => a.startsWith('dynamodb:')),
      );

      // Assess
      const expected = READ_ACTIONS.includes(action)
        ? [
            // A read touches only the shared circuit-breaker items of the table.
            {
              Sid: 'CircuitBreakerState',
              Effect: 'Allow',
              Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
              Resource: getAtt(stack.ledger.table, 'Arn'),
              Condition: {
                'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['breaker#*'] },
              },
            },
          ]
        : [
            {
              Sid: 'EntityLedger',
              Effect: 'Allow',
              Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
              Resource: getAtt(stack.ledger.table, 'Arn'),
            },
          ];
      expect(ledger).toEqual(expected);
    },
  );

  it.each(ACTION_NAMES)('%s logs only to its own log group', (action) => {
    // Act
    const logs = roleStatements(action).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('logs:')),
    );

    // Assess
    expect(logs).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: getAtt(pipelineOf(action).logGroup),
      },
    ]);
  });

  it('has no wildcard resource or action in any identity policy and no managed policies', () => {
    // Prepare
    const statements = identityStatements(template);
    const roles = Object.values(resourcesOfType(template, 'AWS::IAM::Role'));

    // Assess
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(JSON.stringify(statement.Resource)).not.toMatch(/"\*"|:\*"/);
      for (const action of actionsOf(statement)) expect(action).not.toContain('*');
    }
    for (const role of roles) expect(role.Properties?.ManagedPolicyArns).toBeUndefined();
  });
});

describe('entity ledger table', () => {
  it('is on-demand, encrypted, recoverable, and lets old tombstones expire', () => {
    // Act
    const tables = resourcesOfType(template, 'AWS::DynamoDB::GlobalTable');

    // Assess
    expect(Object.keys(tables)).toEqual([logicalId(stack.ledger.table)]);
    expect(Object.values(tables)[0]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        SSESpecification: { SSEEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        Replicas: [
          expect.objectContaining({
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      },
    });
  });
});

describe('handler environment', () => {
  /** Resources every action's environment names, as placeholders (no template is read here). */
  const PLACEHOLDER_RESOURCES = {
    deadLetterQueueUrl: 'https://q',
    sourceQueueUrl: 'https://q',
    breakerTableName: 'ledger',
  } as const;

  it.each(ACTION_NAMES)(
    '%s gets every variable of the contract, filled from the config',
    (action) => {
      // Prepare
      const pipeline = pipelineOf(action);
      const functionProps = resourcesOfType(template, 'AWS::Lambda::Function')[
        logicalId(pipeline.function)
      ]?.Properties as { Environment: { Variables: Record<string, unknown> } };
      const isRead = READ_ACTIONS.includes(action);
      const braked = deleteBrakeFor(config, action) !== undefined;
      const expectedNames = HANDLER_ENVIRONMENT_VARIABLES.filter((name) =>
        name === 'RESULT_EVENT_BUS_NAME'
          ? isRead
          : name.startsWith('LEDGER_')
            ? !isRead
            : name === 'HELD_QUEUE_URL' || name.startsWith('DELETE_BRAKE_')
              ? braked
              : // Only with sourceMapStackTraces, which the config leaves off.
                name !== 'NODE_OPTIONS',
      );

      // Act
      const variables = functionProps.Environment.Variables;

      // Assess
      expect(Object.keys(variables).sort()).toEqual([...expectedNames].sort());
      expect(variables).toMatchObject({
        PLATFORM_CODE: config.tenant.platformCode,
        COMPANY_CODE: config.tenant.companyCode,
        ENVIRONMENT_NAME: config.tenant.environmentName,
        API_BASE_URL: 'https://eu-central-1.platform.example.com:9443',
        CAMPAIGN_REGION: config.campaignRegion,
        API_KEY_SECRET_ID: config.apiKey.secretId,
        API_KEY_SECRETS_REGION: config.apiKey.secretsRegion,
        API_KEY_MAX_AGE_SECONDS: String(config.apiKey.maxAgeSeconds),
        DEAD_LETTER_QUEUE_URL: ref(pipeline.deadLetterQueue),
        MAX_RECEIVE_COUNT: String(config.actions[action].maxReceiveCount),
        POWERTOOLS_SERVICE_NAME: 'contact-center-sync',
        POWERTOOLS_METRICS_NAMESPACE: 'ContactCenterSync',
        POWERTOOLS_LOG_LEVEL: config.logLevel,
      });
      if (isRead) {
        expect(variables.RESULT_EVENT_BUS_NAME).toEqual(ref(stack.eventBus));
      } else {
        expect(variables).toMatchObject({
          LEDGER_TABLE_NAME: ref(stack.ledger.table),
          LEDGER_TOMBSTONE_DAYS: String(config.ledger.tombstoneDays),
        });
      }
      const heldQueue = pipelineOf(action).heldQueue;
      if (braked && heldQueue !== undefined) {
        expect(variables).toMatchObject({
          HELD_QUEUE_URL: ref(heldQueue),
          DELETE_BRAKE_LIMIT: '500',
          DELETE_BRAKE_WINDOW_SECONDS: '3600',
        });
      }
    },
  );

  it.each(ACTION_NAMES)('%s: the runtime accepts what the config gives', (action) => {
    // Prepare
    const environment = handlerEnvironment(config, action, {
      deadLetterQueueUrl: 'https://sqs.eu-central-1.amazonaws.com/111122223333/dlq',
      sourceQueueUrl: 'https://sqs.eu-central-1.amazonaws.com/111122223333/queue',
      breakerTableName: 'contact-center-sync-ledger',
      resultBusName: 'contact-center-sync-prod',
      ledgerTableName: 'contact-center-sync-ledger',
      heldQueueUrl: 'https://sqs.eu-central-1.amazonaws.com/111122223333/held',
    });

    // Act
    const runtime = readRuntimeEnv(environment, {
      requireResultBus: READ_ACTIONS.includes(action),
      requireLedger: !READ_ACTIONS.includes(action),
    });

    // Assess
    expect(runtime).toMatchObject({
      PLATFORM_CODE: 'CCPLATFORM',
      API_BASE_URL: 'https://eu-central-1.platform.example.com:9443',
      API_KEY_MAX_AGE_SECONDS: 900,
      MAX_RECEIVE_COUNT: config.actions[action].maxReceiveCount,
      RETRY_WINDOW_SECONDS: 86_400,
      SOURCE_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/111122223333/queue',
      BREAKER_TABLE_NAME: 'contact-center-sync-ledger',
    });
    expect(runtime.HELD_QUEUE_URL !== undefined).toBe(BRAKED_ACTIONS.includes(action));
    if (BRAKED_ACTIONS.includes(action)) {
      expect(runtime).toMatchObject({ DELETE_BRAKE_LIMIT: 500, DELETE_BRAKE_WINDOW_SECONDS: 3600 });
    }
  });

  it('refuses to build a braked action environment without its held queue', () => {
    // Act
    const build = () =>
      handlerEnvironment(config, 'delete-user', {
        ...PLACEHOLDER_RESOURCES,
        ledgerTableName: 'ledger',
      });

    // Assess
    expect(build).toThrow('delete-user has a mass-delete brake and needs its held queue');
  });

  it.each([
    [false, undefined],
    [true, '--enable-source-maps'],
  ])(
    'sets NODE_OPTIONS for source-mapped stack traces when sourceMapStackTraces is %s: %s',
    (on, nodeOptions) => {
      // Act
      const environment = handlerEnvironment({ ...config, sourceMapStackTraces: on }, 'add-user', {
        ...PLACEHOLDER_RESOURCES,
        ledgerTableName: 'ledger',
      });

      // Assess
      expect(environment.NODE_OPTIONS).toBe(nodeOptions);
    },
  );

  it('refuses to build a read action environment without a result bus', () => {
    // Act
    const build = () =>
      handlerEnvironment(config, 'search-campaign-records', PLACEHOLDER_RESOURCES);

    // Assess
    expect(build).toThrow('search-campaign-records is a read action and needs a result bus');
  });
});

describe('stack', () => {
  it('creates the event bus and outputs its name', () => {
    // Assess
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'contact-center-sync-prod' });
    template.hasOutput('EventBusName', { Value: ref(stack.eventBus) });
  });

  it('creates an encrypted, TLS-only alarm topic with the e-mail subscription', () => {
    // Prepare
    const topic = stack.alarmTopic;
    if (!topic) throw new Error('the example config gives an alarm e-mail');

    // Assess
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: config.alarms.email,
      TopicArn: ref(topic),
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          denyInsecureTransport(),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it('has one pipeline per action and nothing more', () => {
    // Assess
    template.resourceCountIs('AWS::SQS::Queue', 2 * ACTION_NAMES.length + BRAKED_ACTIONS.length);
    template.resourceCountIs('AWS::Lambda::Function', ACTION_NAMES.length);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', ACTION_NAMES.length);
    template.resourceCountIs('AWS::Events::Rule', ACTION_NAMES.length);
    template.resourceCountIs('AWS::CloudWatch::Alarm', ALL_ACTIONS_ALARM_COUNT);
  });
});

describe.each(BRAKED_ACTIONS)('%s mass-delete brake', (action) => {
  const heldQueueOf = () => {
    const queue = pipelineOf(action).heldQueue;
    if (queue === undefined) throw new Error(`${action} has no held queue`);
    return queue;
  };

  it('parks held messages in a TLS-only, SSE queue that keeps them 14 days', () => {
    // Prepare
    const heldQueue = heldQueueOf();

    // Assess
    expect(propertiesOf(template, 'AWS::SQS::Queue', logicalId(heldQueue))).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
      // Only the ops CLI receives from it: a message it could not move 1000 times goes to the DLQ.
      RedrivePolicy: {
        deadLetterTargetArn: getAtt(pipelineOf(action).deadLetterQueue),
        maxReceiveCount: HELD_MAX_RECEIVE_COUNT,
      },
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [ref(heldQueue)],
      PolicyDocument: {
        Statement: Match.arrayWith([denyInsecureTransport()]),
      },
    });
  });

  it('alarms as soon as it holds a message, and before the queue would drop one', () => {
    // Prepare
    const heldQueue = heldQueueOf();
    const topic = stack.alarmTopic;
    if (!topic) throw new Error('the example config gives an alarm e-mail');
    const dimensions = [{ Name: 'QueueName', Value: getAtt(heldQueue, 'QueueName') }];

    // Assess
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [ref(topic)],
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: dimensions,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      AlarmDescription: Match.stringLikeRegexp(`brake release ${action}`),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [ref(topic)],
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: dimensions,
      Threshold: HELD_AGE_ALARM_DAYS * 24 * 3600,
    });
  });

  it('outputs the held queue URL for the ops CLI', () => {
    // Assess
    template.hasOutput(actionOutputKeys(action).heldQueueUrl, { Value: ref(heldQueueOf()) });
  });

  it('keeps its count in the ledger table its ledger grant covers; reads cannot touch it', () => {
    // Prepare
    const readConditions = READ_ACTIONS.flatMap((read) =>
      roleStatements(read).flatMap((statement) =>
        statement.Condition ? [statement.Condition] : [],
      ),
    );

    // Assess
    expect(
      roleStatements(action).some(
        (statement) =>
          statement.Sid === 'EntityLedger' && actionsOf(statement).includes('dynamodb:UpdateItem'),
      ),
    ).toBe(true);
    expect(JSON.stringify(readConditions)).not.toContain('brake#');
  });
});
