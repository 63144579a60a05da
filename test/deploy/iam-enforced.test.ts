/**
 * IAM is enforced, not assumed: a copy of the synthesized template with one grant removed (the
 * reconcile function's read of `incoming/*` and `runs/*`) is deployed into a second, isolated
 * account of the emulator; a run then fails, and its history names the denied action. The
 * unmodified stack's runs (reconcile.test.ts) read the same objects with the grant in place.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
} from '@aws-sdk/client-sfn';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  RECONCILE_BUCKET_OUTPUT_KEY,
  RECONCILE_STATE_MACHINE_OUTPUT_KEY,
} from '../../lib/stack-outputs';
import { putApiKeySecret } from '../../local/aws-emulator/deploy-project';
import {
  type DeployedStack,
  deployTemplate,
  publishAssets,
} from '../../local/aws-emulator/deployed-stack';
import { DEPLOY_API_KEY, deployConfig } from './support/deploy-config';
import { deployedContext } from './support/deployed-context';
import { eventually } from './support/eventually';

/** A second account: the copy's names cannot collide with the deployed stack's. */
const OTHER_ACCOUNT = '111111111111';
const ctx = deployedContext(OTHER_ACCOUNT);

interface PolicyResource {
  readonly Type: string;
  readonly Properties: { PolicyDocument: { Statement: Array<{ Sid?: string }> } };
}

/** A copy of `template` without the policy statement `sid`; throws unless exactly one had it. */
const withoutGrant = (template: Record<string, unknown>, sid: string): Record<string, unknown> => {
  const copy = structuredClone(template) as { Resources: Record<string, PolicyResource> };
  let removed = 0;
  for (const resource of Object.values(copy.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    const statements = resource.Properties.PolicyDocument.Statement;
    const kept = statements.filter((statement) => statement.Sid !== sid);
    removed += statements.length - kept.length;
    resource.Properties.PolicyDocument.Statement = kept;
  }
  if (removed !== 1) throw new Error(`${removed} statements have the Sid ${sid}, not 1`);
  return copy;
};

let deployed: DeployedStack;

beforeAll(async () => {
  const { setup, emulator } = ctx;
  const template = JSON.parse(
    readFileSync(path.join(setup.assemblyDir, `${setup.stackName}.template.json`), 'utf8'),
  ) as Record<string, unknown>;
  const synthesized = {
    stackName: setup.stackName,
    template,
    assemblyDir: setup.assemblyDir,
    assetManifest: setup.assetManifest,
  };
  await publishAssets(emulator, synthesized, setup.python, OTHER_ACCOUNT);
  await putApiKeySecret({
    server: emulator,
    config: deployConfig(setup.platformUrl),
    apiKey: DEPLOY_API_KEY,
    account: OTHER_ACCOUNT,
  });
  deployed = await deployTemplate(
    emulator,
    setup.stackName,
    withoutGrant(template, 'ReadExportsAndRuns'),
    { account: OTHER_ACCOUNT },
  );
});

describe('a stack whose reconcile function may not read its exports', () => {
  it('fails the run, naming the denied action', async () => {
    // Prepare
    const bucket = deployed.outputs[RECONCILE_BUCKET_OUTPUT_KEY];
    const stateMachineArn = deployed.outputs[RECONCILE_STATE_MACHINE_OUTPUT_KEY];
    const text = `${JSON.stringify({
      loginUserId: 'ivy.iam@example.com',
      firstName: 'Ivy',
      lastName: 'Iam',
      userTemplateName: 'Agent-Standard',
    })}\n`;
    const manifest = {
      kind: 'users',
      scope: 'roster',
      file: 'roster-iam.jsonl',
      exportedAt: new Date().toISOString(),
      rowCount: 1,
      sha256: createHash('sha256').update(text).digest('hex'),
    };

    // Act
    const { s3, sfn } = ctx.clients;
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'incoming/roster-iam.jsonl', Body: text }),
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'incoming/roster-iam.manifest.json',
        Body: JSON.stringify(manifest),
      }),
    );

    // Assess
    const run = await eventually('the run to end', async () => {
      const { executions = [] } = await sfn.send(new ListExecutionsCommand({ stateMachineArn }));
      for (const { executionArn } of executions) {
        const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
        if (described.status !== 'RUNNING') return described;
      }
      return undefined;
    });
    expect(run.status).toBe('FAILED');
    const { events = [] } = await sfn.send(
      new GetExecutionHistoryCommand({ executionArn: run.executionArn }),
    );
    const failed = events.find((event) => event.type === 'ExecutionFailed');
    expect(JSON.stringify(failed?.executionFailedEventDetails)).toContain('s3:GetObject');
  });
});
