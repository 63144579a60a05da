/**
 * cdk-nag AwsSolutionsChecks and ServerlessChecks (registered by `createApp` exactly as
 * `bin/app.ts` does) find nothing in the stacks the configs produce, and nothing is silenced
 * without a reason.
 */
import { Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, type NagPack, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/app';
import { type DeploymentConfig, loadConfig } from '../../lib/config';
import { configWith, NO_BUNDLING } from './synth';

const variants: ReadonlyArray<[string, () => DeploymentConfig]> = [
  ['the example config', () => loadConfig('example')],
  ['a minimal config', () => configWith()],
  [
    'an existing bus, topic + e-mail alarms and a KMS-encrypted secret given by ARN',
    () =>
      configWith({
        eventBus: { existingBusName: 'default' },
        alarms: { topicArn: 'arn:aws:sns:eu-central-1:111122223333:ops', email: 'ops@example.com' },
        apiKey: {
          secretId: 'arn:aws:secretsmanager:eu-central-1:111122223333:secret:cc/api-key-AbC123',
          secretsRegion: 'eu-central-1',
          kmsKeyArn:
            'arn:aws:kms:eu-central-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
        },
        actions: { 'add-user': { enabled: false } },
      }),
  ],
  [
    "SCIM setting the account's API Gateway log role",
    () =>
      configWith({
        scim: {
          enabled: true,
          tokenSecretId: 'cc/scim-token',
          defaults: { userTemplateName: 'Agent' },
          createApiGatewayLogRole: true,
        },
      }),
  ],
];

interface Acknowledgement {
  readonly path: string;
  readonly id: string;
  readonly reason: unknown;
}

/** Every `Validations.of(…).acknowledge(…)` recorded anywhere in the tree. */
const acknowledgements = (root: IConstruct): Acknowledgement[] =>
  root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, unknown>).map(([id, reason]) => ({
          path: construct.node.path,
          id,
          reason,
        })),
      ),
  );

const packs: ReadonlyArray<[string, () => NagPack]> = [
  ['AwsSolutions', () => new AwsSolutionsChecks(undefined, { verbose: true })],
  ['Serverless', () => new ServerlessChecks(undefined, { verbose: true })],
];

describe.each(variants)('cdk-nag on %s', (_name, config) => {
  it.each(packs)('%s reports no finding that is not acknowledged', (pack, create) => {
    // Prepare
    const { app } = createApp(config(), NO_BUNDLING);
    const acknowledged = new Set(
      acknowledgements(app).map(({ id }) => id.replace(new RegExp(`^${pack}::`), '')),
    );

    // Act
    const report = create().validateScope(app);

    // Assess
    const open = report.violations.filter((v) => !acknowledged.has(v.ruleName));
    expect(open.map((v) => `${v.ruleName}: ${v.description}`)).toEqual([]);
  });

  it('lets the synth (which runs both plugins) pass with no error or warning annotations', () => {
    // Prepare
    const { app, stack } = createApp(config(), NO_BUNDLING);

    // Act
    const assembly = app.synth();

    // Assess
    expect(assembly.getStackByName(stack.stackName).template).toHaveProperty('Resources');
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
    expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
  });

  it('acknowledges each finding naming a rule and giving a reason; AwsSolutions ones only in the reconcile run', () => {
    // Prepare
    const { app } = createApp(config(), NO_BUNDLING);

    // Act
    const acknowledged = acknowledgements(app);

    // Assess
    for (const { id, reason } of acknowledged) {
      expect(id).toMatch(
        /^(?:(?:AwsSolutions::)?AwsSolutions-[A-Za-z]+\d+(?:\[.+\])?|Serverless::Serverless-[A-Za-z]+)$/,
      );
      expect(typeof reason === 'string' ? reason.trim().length : 0).toBeGreaterThanOrEqual(20);
    }
    // Every other AwsSolutions finding was fixed rather than acknowledged: only the reconcile
    // run's grants, whose object keys and map runs exist only at run time, cannot name their
    // resources, its start DLQ is a dead-letter queue no other queue names, and the SCIM API's
    // authorizer, validator, WAF and execution-log rules (docs/decisions.md#scim).
    const awsSolutions = acknowledged.filter(({ id }) => id.includes('AwsSolutions-'));
    expect(
      awsSolutions.filter(
        ({ path, id }) =>
          !path.includes('/Reconciliation') &&
          !(
            path.endsWith('/Scim') &&
            /-(APIG2|APIG3|APIG4|APIG6|COG4|IAM4\[Policy::.+\/AmazonAPIGatewayPushToCloudWatchLogs\])$/.test(
              id,
            )
          ),
      ),
    ).toEqual([]);
  });
});

describe('the checks are live', () => {
  it('fail the synth when a resource breaks an AwsSolutions rule', () => {
    // Prepare
    const { app, stack } = createApp(configWith(), NO_BUNDLING);
    new sqs.Queue(stack, 'PlainQueue', { encryption: sqs.QueueEncryption.UNENCRYPTED });

    // Act
    const report = new AwsSolutionsChecks().validateScope(app);

    // Assess
    expect(report.violations.map((v) => v.ruleName)).toEqual(
      expect.arrayContaining(['AwsSolutions-SQS3', 'AwsSolutions-SQS4']),
    );
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });

  it('fail the synth when a queue breaks a Serverless rule', () => {
    // Prepare
    const { app, stack } = createApp(configWith(), NO_BUNDLING);
    new sqs.Queue(stack, 'NoRedriveQueue', { enforceSSL: true });

    // Act
    const report = new ServerlessChecks().validateScope(app);

    // Assess
    expect(report.violations.map((v) => v.ruleName)).toContain('Serverless-SQSRedrivePolicy');
    expect(() => app.synth()).toThrow(/Serverless-SQSRedrivePolicy/);
  });
});
