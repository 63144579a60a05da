/**
 * What config choices change in the stack: disabled actions, imported buses, a secret given by
 * ARN or encrypted with a customer key, alarm destinations, batching windows, per-action sources.
 * Each case synthesizes without esbuild (the template is the same, only asset hashes differ).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAMES, type ActionName, BRAKED_ACTIONS } from '../../lambdas/actions';
import { pascalCase } from '../../lib/stack-outputs';
import {
  ALL_ACTIONS_ALARM_COUNT,
  actionsOf,
  alarmCountOf,
  configWith,
  getAtt,
  identityStatements,
  logicalId,
  propertiesOf,
  resourcesOfType,
  type Synthesized,
  synth,
} from './synth';

describe('a disabled action', () => {
  let synthesized: Synthesized;

  beforeAll(() => {
    synthesized = synth(
      configWith({
        actions: {
          'delete-user': { enabled: false },
          'search-campaign-records': { enabled: false },
        },
      }),
    );
  });

  it('creates no resources and no outputs for it', () => {
    // Prepare
    const { template, stack } = synthesized;
    const json = JSON.stringify(template.toJSON());

    // Assess
    expect(stack.pipelines.has('delete-user')).toBe(false);
    expect(stack.node.tryFindChild(pascalCase('delete-user'))).toBeUndefined();
    expect(json).not.toContain('DeleteUser');
    expect(json).not.toContain('SearchCampaignRecords');
    expect(json).not.toContain('"delete-user"');
    template.resourceCountIs('AWS::Lambda::Function', ACTION_NAMES.length - 2);
    const enabled: readonly ActionName[] = ACTION_NAMES.filter(
      (action) => action !== 'delete-user' && action !== 'search-campaign-records',
    );
    const braked = BRAKED_ACTIONS.filter((action) => enabled.includes(action));
    template.resourceCountIs('AWS::SQS::Queue', 2 * enabled.length + braked.length);
    template.resourceCountIs('AWS::Events::Rule', ACTION_NAMES.length - 2);
    template.resourceCountIs('AWS::CloudWatch::Alarm', alarmCountOf(enabled, braked));
  });

  it('still creates the enabled ones', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { 'detail-type': ['add-user'], source: ['crm', 'hr'] },
    });
    synthesized.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { 'detail-type': ['query-user-existence'], source: ['crm', 'hr'] },
    });
  });
});

describe('an existing event bus', () => {
  it('by name: creates no bus, routes on it and publishes results to it', () => {
    // Act
    const { template } = synth(configWith({ eventBus: { existingBusName: 'crm-events' } }));

    // Assess
    template.resourceCountIs('AWS::Events::EventBus', 0);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: 'crm-events',
      EventPattern: { 'detail-type': ['add-user'] },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ RESULT_EVENT_BUS_NAME: 'crm-events' }) },
    });
    const puts = identityStatements(template).filter((s) =>
      actionsOf(s).includes('events:PutEvents'),
    );
    expect(puts).toHaveLength(2);
    for (const statement of puts) {
      expect(statement.Resource).toEqual({
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':events:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ':event-bus/crm-events',
          ],
        ],
      });
    }
    template.hasOutput('EventBusName', { Value: 'crm-events' });
  });

  it('by ARN: creates no bus, routes on it and publishes results to exactly that ARN', () => {
    // Prepare
    const arn = 'arn:aws:events:eu-central-1:111122223333:event-bus/crm-events';

    // Act
    const { template } = synth(configWith({ eventBus: { existingBusArn: arn } }));

    // Assess
    template.resourceCountIs('AWS::Events::EventBus', 0);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: 'crm-events',
      EventPattern: { 'detail-type': ['delete-user'] },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ RESULT_EVENT_BUS_NAME: arn }) },
    });
    const puts = identityStatements(template).filter((s) =>
      actionsOf(s).includes('events:PutEvents'),
    );
    expect(puts.map((s) => s.Resource)).toEqual([arn, arn]);
  });
});

describe('the API key secret', () => {
  it('given as a complete ARN: grants exactly that ARN', () => {
    // Prepare
    const arn = 'arn:aws:secretsmanager:eu-west-2:111122223333:secret:cc/api-key-AbC123';

    // Act
    const { template } = synth(
      configWith({ apiKey: { secretId: arn, secretsRegion: 'eu-west-2' } }),
    );

    // Assess
    const reads = identityStatements(template).filter((s) =>
      actionsOf(s).includes('secretsmanager:GetSecretValue'),
    );
    expect(reads).toHaveLength(ACTION_NAMES.length);
    for (const statement of reads) expect(statement.Resource).toBe(arn);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          API_KEY_SECRET_ID: arn,
          API_KEY_SECRETS_REGION: 'eu-west-2',
        }),
      },
    });
  });

  it('with a customer-managed key: may decrypt with it only through Secrets Manager', () => {
    // Prepare
    const keyArn = 'arn:aws:kms:eu-central-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';

    // Act
    const { template } = synth(
      configWith({
        apiKey: { secretId: 'cc/api-key', secretsRegion: 'eu-central-1', kmsKeyArn: keyArn },
      }),
    );

    // Assess
    const decrypts = identityStatements(template).filter((s) =>
      actionsOf(s).includes('kms:Decrypt'),
    );
    expect(decrypts).toHaveLength(ACTION_NAMES.length);
    for (const statement of decrypts) {
      expect(statement).toEqual({
        Sid: 'DecryptApiKey',
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: keyArn,
        Condition: {
          StringEquals: { 'kms:ViaService': 'secretsmanager.eu-central-1.amazonaws.com' },
        },
      });
    }
  });

  it('without a customer-managed key: no KMS permission at all', () => {
    // Act
    const { template } = synth(configWith());

    // Assess
    const kms = identityStatements(template).filter((s) =>
      actionsOf(s).some((action) => action.startsWith('kms:')),
    );
    expect(kms).toEqual([]);
  });
});

describe('a mass-delete brake switched off', () => {
  it('creates no held queue, output, alarm or brake variable for that action only', () => {
    // Act
    const { template, stack } = synth(
      configWith({ deleteBrake: { 'delete-user': { enabled: false } } }),
    );

    // Assess
    expect(stack.pipelines.get('delete-user')?.heldQueue).toBeUndefined();
    expect(stack.pipelines.get('delete-campaign-record')?.heldQueue).toBeDefined();
    expect(Object.keys(template.findOutputs('DeleteUserHeldQueueUrl'))).toEqual([]);
    template.resourceCountIs(
      'AWS::SQS::Queue',
      2 * ACTION_NAMES.length + BRAKED_ACTIONS.length - 1,
    );
    const deleteUser = stack.pipelines.get('delete-user');
    if (!deleteUser) throw new Error('delete-user is enabled');
    const variables = propertiesOf<{ Environment: { Variables: Record<string, unknown> } }>(
      template,
      'AWS::Lambda::Function',
      logicalId(deleteUser.function),
    ).Environment.Variables;
    expect(Object.keys(variables).filter((name) => /HELD|BRAKE/.test(name))).toEqual([]);
  });
});

describe('alarm destinations', () => {
  it('an existing topic only: alarms notify it and no topic is created', () => {
    // Prepare
    const topicArn = 'arn:aws:sns:eu-central-1:111122223333:ops-alerts';

    // Act
    const { template } = synth(configWith({ alarms: { topicArn } }));

    // Assess
    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.resourceCountIs('AWS::KMS::Key', 0);
    const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(ALL_ACTIONS_ALARM_COUNT);
    for (const alarm of alarms) {
      expect(alarm.Properties).toMatchObject({ AlarmActions: [topicArn], OKActions: [topicArn] });
    }
  });

  it('a topic and an e-mail: alarms notify both', () => {
    // Prepare
    const topicArn = 'arn:aws:sns:eu-central-1:111122223333:ops-alerts';

    // Act
    const { template, stack } = synth(
      configWith({ alarms: { topicArn, email: 'ops@example.com' } }),
    );

    // Assess
    const created = stack.alarmTopic;
    if (!created) throw new Error('expected a created topic');
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [topicArn, { Ref: logicalId(created) }],
    });
  });

  it('neither: alarms exist without actions', () => {
    // Act
    const { template } = synth(configWith());

    // Assess
    template.resourceCountIs('AWS::SNS::Topic', 0);
    const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(ALL_ACTIONS_ALARM_COUNT);
    for (const alarm of alarms) {
      expect(alarm.Properties?.AlarmActions).toBeUndefined();
      expect(alarm.Properties?.OKActions).toBeUndefined();
    }
  });
});

describe('per-action settings', () => {
  let synthesized: Synthesized;

  beforeAll(() => {
    synthesized = synth(
      configWith({
        allowedSources: ['crm'],
        actions: {
          'add-user': {
            batchSize: 100,
            maxBatchingWindowSeconds: 20,
            timeoutSeconds: 120,
            maxConcurrency: 50,
            allowedSources: ['hr', 'hr.backfill'],
          },
        },
        alarms: { oldestMessageAgeSeconds: 300 },
        retry: { windowHours: 2, firstDelaySeconds: 60, maxDelaySeconds: 600 },
        eventDelivery: { retryAttempts: 10, maxEventAgeSeconds: 3600 },
        logRetentionDays: 90,
        logLevel: 'DEBUG',
      }),
    );
  });

  it('adds the batching window to the visibility timeout', () => {
    // Prepare
    const pipeline = synthesized.stack.pipelines.get('add-user');
    if (!pipeline) throw new Error('add-user is enabled');

    // Act
    const queue = propertiesOf(synthesized.template, 'AWS::SQS::Queue', logicalId(pipeline.queue));

    // Assess
    expect(queue).toMatchObject({
      VisibilityTimeout: 6 * 120 + 20,
      // 2 h at waits of at least 30, 60, 120, 240, then 300 s: 28 receives, plus a tenth and 3.
      RedrivePolicy: { maxReceiveCount: 34 },
    });
    synthesized.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: getAtt(pipeline.queue),
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 20,
      ScalingConfig: { MaximumConcurrency: 50 },
    });
    synthesized.template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 120,
      Environment: {
        Variables: Match.objectLike({
          MAX_RECEIVE_COUNT: '34',
          RETRY_WINDOW_SECONDS: '7200',
          RETRY_FIRST_DELAY_SECONDS: '60',
          RETRY_MAX_DELAY_SECONDS: '600',
          POWERTOOLS_LOG_LEVEL: 'DEBUG',
        }),
      },
    });
  });

  it('routes the action from its own sources and the others from the top-level list', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { 'detail-type': ['add-user'], source: ['hr', 'hr.backfill'] },
      Targets: [
        Match.objectLike({
          RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600 },
        }),
      ],
    });
    synthesized.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { 'detail-type': ['delete-user'], source: ['crm'] },
    });
  });

  it('applies the alarm threshold and log retention', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: 300,
    });
    synthesized.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });
});

describe('deployment pinning', () => {
  it('pins the stack to the configured account and region', () => {
    // Act
    const { stack } = synth(
      configWith({ deployment: { account: '111122223333', region: 'eu-west-1' } }),
    );

    // Assess
    expect(stack.account).toBe('111122223333');
    expect(stack.region).toBe('eu-west-1');
    expect(stack.stackName).toBe('ContactCenterSync-test');
  });
});
