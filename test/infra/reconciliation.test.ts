/**
 * Reconciliation in the stack: the bucket, the rule a manifest's arrival fires, the state
 * machine (plan in a function, repairs by a Distributed Map), their IAM, and the alarms per
 * scope. Focused template assertions; the function's logic is tested against moto and the
 * simulator (test/integration/reconcile/).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ACTION_NAMES, type ActionName } from '../../lambdas/actions';
import { REPAIR_ORDER, type RepairAction, SCOPE_KINDS } from '../../lambdas/reconcile/categories';
import { PLAN_STEP_OUTCOME } from '../../lambdas/reconcile/plan-step-outcome';
import { denyInsecureTransport } from './policy-statements';
import { configWith, synth } from './synth';

const scopes = {
  'hr-agents': { kind: 'users', apply: 'plan-only', alarmAfterDays: 3 },
  leads: { kind: 'records', campaigns: ['Spring'], apply: 'auto' },
};
const { template } = synth(configWith({ reconcile: { scopes, applyConcurrency: 7 } }));

/** An action's queue, as its logical id starts (`add-user` → `AddUserQueue`). */
const queueOf = (action: ActionName): string =>
  `${action.replace(/(^|-)(\w)/g, (_m, _dash, c: string) => c.toUpperCase())}Queue`;

const stateMachineDefinition = (): Record<string, unknown> => {
  const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
  const body = (machine as { Properties: { DefinitionString: unknown } }).Properties
    .DefinitionString;
  // Fn::Join of literal parts and tokens, which all sit inside JSON strings (ARNs, names).
  const parts = (body as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'TOKEN')).join(''));
};

describe('the reconcile bucket', () => {
  it('is encrypted, versioned, private, TLS only, logged, with a lifecycle and EventBridge notifications', () => {
    // Assess
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
        ],
      },
      VersioningConfiguration: { Status: 'Enabled' },
      PublicAccessBlockConfiguration: Match.objectLike({
        BlockPublicAcls: true,
        RestrictPublicBuckets: true,
      }),
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'reconcile-bucket/' }),
      NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Prefix: 'incoming/', ExpirationInDays: 90 }),
          Match.objectLike({ Prefix: 'runs/', ExpirationInDays: 400 }),
          Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 30 } }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([denyInsecureTransport()]),
      },
    });
  });

  it('starts a run when a manifest lands under incoming/', () => {
    // Assess
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.s3'],
        'detail-type': ['Object Created'],
        detail: { object: { key: [{ wildcard: 'incoming/*.manifest.json' }] } },
      },
      Targets: [Match.objectLike({ Arn: { Ref: Match.stringLikeRegexp('ReconciliationRun') } })],
    });
  });

  it('keeps a manifest event whose run could not start: retried, then in its DLQ, and alarmed on', () => {
    // Assess
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ source: ['aws.s3'] }),
      Targets: [
        Match.objectLike({
          DeadLetterConfig: {
            Arn: {
              'Fn::GetAtt': [Match.stringLikeRegexp('ReconciliationStartDeadLetterQueue'), 'Arn'],
            },
          },
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 },
        }),
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: {
            'Fn::GetAtt': [
              Match.stringLikeRegexp('ReconciliationStartDeadLetterQueue'),
              'QueueName',
            ],
          },
        },
      ],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Events',
      MetricName: 'FailedInvocations',
      Dimensions: [{ Name: 'RuleName', Value: { Ref: Match.stringLikeRegexp('ManifestArrived') } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });
});

describe('the reconcile state machine', () => {
  it('plans in the function, loops while a long plan hands over, and sends repairs with a Distributed Map', () => {
    // Act
    const definition = stateMachineDefinition() as {
      States: Record<string, Record<string, unknown>>;
    };
    const { Plan, WhatNext, SendRepairs } = definition.States;

    // Assess
    expect(Plan).toMatchObject({
      Type: 'Task',
      Parameters: {
        step: 'plan',
        'key.$': '$.detail.object.key',
        'runName.$': '$$.Execution.Name',
      },
    });
    expect(JSON.stringify(WhatNext)).toContain('"StringEquals":"continue","Next":"Plan"');
    expect(SendRepairs).toMatchObject({
      Type: 'Map',
      MaxConcurrency: 7,
      ItemReader: {
        Resource: 'arn:TOKEN:states:::s3:getObject',
        ReaderConfig: { InputType: 'JSONL' },
      },
      ItemProcessor: {
        ProcessorConfig: { Mode: 'DISTRIBUTED' },
        States: { SendRepair: { Resource: 'arn:TOKEN:states:::aws-sdk:sqs:sendMessage' } },
      },
    });
  });

  it('logs every transition without execution data, traced, with a day as its timeout', () => {
    // Assess
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: false }),
      TracingConfiguration: { Enabled: true },
    });
  });
});

describe('reconcile IAM', () => {
  it('the run function reads exports and runs, writes only runs, and gets the ledger items', () => {
    // Act
    const policies = template.findResources('AWS::IAM::Policy', {
      Properties: { PolicyName: Match.stringLikeRegexp('ReconciliationFunctionRole') },
    });
    const statements = Object.values(policies).flatMap(
      (p) =>
        (
          p as {
            Properties: { PolicyDocument: { Statement: { Sid?: string; Action: unknown }[] } };
          }
        ).Properties.PolicyDocument.Statement,
    );
    const bySid = new Map(statements.map((s) => [s.Sid, s]));

    // Assess
    expect(bySid.get('ReadExportsAndRuns')?.Action).toBe('s3:GetObject');
    expect(bySid.get('WriteRuns')?.Action).toBe('s3:PutObject');
    expect(bySid.get('LedgerAndRunHistory')?.Action).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:Scan',
    ]);
    expect(JSON.stringify(statements)).not.toMatch(/"s3:\*"|"dynamodb:\*"|"sqs:/);
  });

  it('the state machine may send to the repair queues only', () => {
    // Act
    const policies = template.findResources('AWS::IAM::Policy', {
      Properties: { PolicyName: Match.stringLikeRegexp('ReconciliationRunRole') },
    });
    const sends = Object.values(policies)
      .flatMap(
        (p) =>
          (
            p as {
              Properties: {
                PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] };
              };
            }
          ).Properties.PolicyDocument.Statement,
      )
      .filter(
        (s) =>
          s.Action === 'sqs:sendMessage' ||
          (Array.isArray(s.Action) && s.Action.includes('sqs:sendMessage')),
      );

    // Assess
    expect(sends).toHaveLength(1);
    const resources = JSON.stringify(sends[0]?.Resource);
    // The config's scopes are of every kind: each repair action of the table, and no other.
    expect(new Set(Object.values(scopes).map((scope) => scope.kind))).toEqual(new Set(SCOPE_KINDS));
    for (const action of ACTION_NAMES) {
      const queue = new RegExp(`"${queueOf(action)}[0-9A-F]{8}"`);
      if (REPAIR_ORDER.includes(action as RepairAction)) expect(resources).toMatch(queue);
      else expect(resources).not.toMatch(queue);
    }
  });
});

describe('reconcile alarms', () => {
  it.each([
    ['hr-agents', 3],
    ['leads', 2],
  ])('scope %s: no successful run in %i days, and a held plan', (scope, days) => {
    // Assess
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ReconcileRunSucceeded',
      Dimensions: Match.arrayWith([{ Name: 'scope', Value: scope }]),
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      EvaluationPeriods: days,
      Period: 86_400,
      TreatMissingData: 'breaching',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ReconcilePlansHeld',
      Dimensions: Match.arrayWith([{ Name: 'scope', Value: scope }]),
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });
});

describe('reconcile config', () => {
  it('creates nothing of it without scopes', () => {
    // Act
    const plain = synth(configWith()).template;

    // Assess
    plain.resourceCountIs('AWS::StepFunctions::StateMachine', 0);
    plain.resourceCountIs('AWS::S3::Bucket', 0);
  });

  it('refuses a scope whose repair actions are disabled, naming them', () => {
    // Act
    const attempt = () =>
      synth(configWith({ reconcile: { scopes }, actions: { 'delete-user': { enabled: false } } }));

    // Assess
    expect(attempt).toThrow(
      /reconcile\.scopes: repairs are sent to delete-user, which is disabled/,
    );
  });

  it('names the bad field of a scope', () => {
    // Act
    const attempt = () =>
      configWith({ reconcile: { scopes: { x: { kind: 'records', campaigns: [] } } } });

    // Assess
    expect(attempt).toThrow(/reconcile\.scopes: x\.campaigns: must list at least one/);
  });

  it.each([
    [
      'two records scopes covering one campaign',
      {
        renewals: { kind: 'records', campaigns: ['Spring-Renewals'] },
        intake: { kind: 'records', campaigns: ['Bulk-Intake', 'Spring-Renewals'] },
      },
      /reconcile\.scopes: intake\.campaigns: "Spring-Renewals" is also covered by scope renewals/,
    ],
    [
      'two users scopes whose rules can both match a user',
      {
        staff: { kind: 'users', covers: { loginUserIdDomains: ['example.com'] } },
        agents: { kind: 'users', covers: { userTemplateNames: ['Agent-Standard'] } },
      },
      /reconcile\.scopes: agents\.covers: can match the same users as scope staff's covers/,
    ],
    [
      'a roster reading absence as leaving without a rule',
      { hr: { kind: 'users', absentMeansLeave: true } },
      /reconcile\.scopes: hr\.covers: is required when absentMeansLeave is true/,
    ],
  ])('refuses %s at synth, naming the field and both scopes', (_case, overlapping, message) => {
    // Act
    const attempt = () => synth(configWith({ reconcile: { scopes: overlapping } }));

    // Assess
    expect(attempt).toThrow(message);
  });
});

describe("the state machine's Choice after the plan step", () => {
  it.each([
    [PLAN_STEP_OUTCOME.continue, 'Plan'],
    [PLAN_STEP_OUTCOME.apply, 'SendRepairs'],
    [PLAN_STEP_OUTCOME.refused, 'Refused'],
  ])('matches the function\'s outcome "%s" (one constant), going to %s', (outcome, next) => {
    // Act
    const { WhatNext } = (
      stateMachineDefinition() as {
        States: Record<string, { Choices?: unknown[]; Default?: string }>;
      }
    ).States;

    // Assess
    expect(WhatNext?.Choices).toContainEqual({
      Variable: '$.plan.outcome',
      StringEquals: outcome,
      Next: next,
    });
  });

  it.each([PLAN_STEP_OUTCOME.held, PLAN_STEP_OUTCOME.noChanges])(
    'ends the run on "%s"',
    (outcome) => {
      // Act
      const { WhatNext } = (
        stateMachineDefinition() as {
          States: Record<string, { Choices?: { StringEquals?: string }[]; Default?: string }>;
        }
      ).States;

      // Assess
      expect(WhatNext?.Choices?.map((c) => c.StringEquals)).not.toContain(outcome);
      expect(WhatNext?.Default).toBe('PlannedOnly');
    },
  );
});
