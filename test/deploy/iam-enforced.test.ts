/**
 * IAM is enforced, not assumed: a copy of the synthesized template with two grants removed (the
 * reconcile function's read of `incoming/*` and `runs/*`, the SCIM function's read of its token
 * secret) is deployed into a second, isolated account of the emulator, with both secrets in
 * place; a run then fails, and its history names the denied action; the SCIM function answers 503
 * (the token cannot be checked) and nothing reaches the platform. The unmodified stack's runs
 * (reconcile.test.ts) and SCIM requests (scim.test.ts, and below) succeed with the grants.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InvokeCommand } from '@aws-sdk/client-lambda';
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
  SCIM_URL_OUTPUT_KEY,
} from '../../lib/stack-outputs';
import { putApiKeySecret, putSecret } from '../../local/aws-emulator/deploy-project';
import {
  type DeployedStack,
  deployTemplate,
  publishAssets,
} from '../../local/aws-emulator/deployed-stack';
import { apiGatewayEvent } from '../../testkit';
import {
  DEPLOY_API_KEY,
  DEPLOY_SCIM_TOKEN,
  DEPLOY_SCIM_TOKEN_SECRET_ID,
  deployConfig,
} from './support/deploy-config';
import { deployedContext } from './support/deployed-context';
import { eventually } from './support/eventually';
import { scimBaseUrl, trustEmulatorCertificate } from './support/scim-endpoint';

/** A second account: the copy's names cannot collide with the deployed stack's. */
const OTHER_ACCOUNT = '111111111111';
const ctx = deployedContext(OTHER_ACCOUNT);

interface PolicyResource {
  readonly Type: string;
  readonly Properties: { PolicyDocument: { Statement: Array<{ Sid?: string }> } };
}

/** A copy of `template` without the policy statements `sids`; throws unless each was there once. */
const withoutGrants = (
  template: Record<string, unknown>,
  sids: readonly string[],
): Record<string, unknown> => {
  const copy = structuredClone(template) as { Resources: Record<string, PolicyResource> };
  for (const sid of sids) {
    let removed = 0;
    for (const resource of Object.values(copy.Resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const statements = resource.Properties.PolicyDocument.Statement;
      const kept = statements.filter((statement) => statement.Sid !== sid);
      removed += statements.length - kept.length;
      resource.Properties.PolicyDocument.Statement = kept;
    }
    if (removed !== 1) throw new Error(`${removed} statements have the Sid ${sid}, not 1`);
  }
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
  await putSecret(emulator, {
    name: DEPLOY_SCIM_TOKEN_SECRET_ID,
    value: DEPLOY_SCIM_TOKEN,
    account: OTHER_ACCOUNT,
  });
  deployed = await deployTemplate(
    emulator,
    setup.stackName,
    withoutGrants(template, ['ReadExportsAndRuns', 'ReadScimToken']),
    { account: OTHER_ACCOUNT },
  );
  trustEmulatorCertificate(setup.caCertificate);
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

describe('a stack whose SCIM function may not read its token secret', () => {
  it('answers 503 where the unmodified stack answers 200, and sends nothing to the platform', async () => {
    // Prepare: MiniStack routes an unsigned execute-api request to its default account only, so
    // the copy's function is invoked with the event its API Gateway would send.
    const platformRequests = async (): Promise<number> => {
      const response = await fetch(`${ctx.setup.platformUrl}/__admin/stats`);
      return ((await response.json()) as { requests: number }).requests;
    };
    const request = {
      method: 'GET',
      path: 'Users',
      query: { count: '1' },
      headers: { Authorization: `Bearer ${DEPLOY_SCIM_TOKEN}` },
    };
    const stackUrl = ctx.setup.outputs[SCIM_URL_OUTPUT_KEY];
    if (stackUrl === undefined) throw new Error(`the stack has no output ${SCIM_URL_OUTPUT_KEY}`);
    const before = await platformRequests();

    // Act
    const invoked = await ctx.clients.lambda.send(
      new InvokeCommand({
        FunctionName: await ctx.physicalId('ScimFunction'),
        Payload: JSON.stringify(apiGatewayEvent(request)),
      }),
    );
    const granted = await fetch(`${scimBaseUrl(ctx.setup.endpoint, stackUrl)}/Users?count=1`, {
      headers: request.headers,
    });

    // Assess
    expect(invoked.FunctionError).toBeUndefined();
    const denied = JSON.parse(Buffer.from(invoked.Payload ?? []).toString('utf8')) as {
      statusCode: number;
      headers: Record<string, string>;
      body: string;
    };
    expect(denied.statusCode).toBe(503);
    expect(JSON.parse(denied.body)).toMatchObject({ detail: expect.stringMatching(/token/) });
    expect(denied.headers['Retry-After']).toBeDefined();
    expect(granted.status).toBe(200);
    expect(await platformRequests()).toBe(before);
  });
});
