/**
 * Deploys a synthesized stack into MiniStack as `cdk deploy` would into an account: the file
 * assets published to the bootstrap bucket (function bundles zipped), the bootstrap version
 * parameter in place, then CreateStack of the template exactly as synthesized. Shared by the
 * deploy tests (test/deploy/) and `npm start -- --deployed`; a test that deploys another stack
 * (or a copy with a fault) reuses `deployTemplate`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CloudFormationClient,
  CreateStackCommand,
  DescribeStackEventsCommand,
  DescribeStacksCommand,
  type Stack,
} from '@aws-sdk/client-cloudformation';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { App } from 'aws-cdk-lib';
import type { MiniStackServer } from './ministack-server';

/** What every AWS SDK client needs to talk to the emulator (spread into its config). */
export interface EmulatorClientConfig {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly requestHandler: { readonly httpsAgent: MiniStackServer['httpsAgent'] };
}

/**
 * The account root's client config: the caller the test is, allowed everything. MiniStack
 * takes a 12-digit access key as the account to act in, so `account` selects another,
 * isolated account (a second deployment of the same stack, names and all).
 */
export const emulatorClientConfig = (
  server: EmulatorEndpoint,
  account: string = server.account,
): EmulatorClientConfig => ({
  endpoint: server.endpoint,
  region: server.region,
  credentials: {
    accessKeyId: account === server.account ? 'test' : account,
    secretAccessKey: 'test',
  },
  requestHandler: { httpsAgent: server.httpsAgent },
});

/** Where the emulator answers: a running server, or one another process started. */
export type EmulatorEndpoint = Pick<
  MiniStackServer,
  'endpoint' | 'region' | 'account' | 'httpsAgent'
>;

/** A synthesized stack: its template and the directory its assets were written to. */
export interface SynthesizedStack {
  readonly stackName: string;
  readonly template: Record<string, unknown>;
  /** The cloud assembly directory (`cdk.out` of this synth). */
  readonly assemblyDir: string;
  /** The stack's asset manifest (`<artifact>.assets.json`). */
  readonly assetManifest: string;
}

/** Synthesizes `app` (with bundling) into a fresh directory and returns the named stack. */
export const synthesizeStack = (app: App, stackName: string): SynthesizedStack => {
  const assembly = app.synth();
  const artifact = assembly.getStackByName(stackName);
  return {
    stackName,
    template: artifact.template as Record<string, unknown>,
    assemblyDir: assembly.directory,
    assetManifest: path.join(assembly.directory, `${artifact.id}.assets.json`),
  };
};

interface FileAsset {
  readonly source: { readonly path: string; readonly packaging?: 'file' | 'zip' };
  readonly destinations: Record<
    string,
    { readonly bucketName: string; readonly objectKey: string }
  >;
}

const run = (command: string, args: readonly string[]): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited ${code}: ${stderr}`)),
    );
  });

/** Zips a directory asset as the CDK CLI does (its files at the archive's root). */
const zipDirectory = async (python: string, directory: string, into: string): Promise<string> => {
  const base = path.join(into, path.basename(directory));
  await run(python, [
    '-c',
    "import shutil, sys; shutil.make_archive(sys.argv[1], 'zip', sys.argv[2])",
    base,
    directory,
  ]);
  return `${base}.zip`;
};

/** `${AWS::AccountId}` and `${AWS::Region}` as the asset manifest spells them. */
const PLACEHOLDER_ACCOUNT = '$' + '{AWS::AccountId}';
const PLACEHOLDER_REGION = '$' + '{AWS::Region}';

const assetBucket = (server: EmulatorEndpoint, account: string): string =>
  `cdk-hnb659fds-assets-${account}-${server.region}`;

const createBucketOnce = async (s3: S3Client, bucket: string): Promise<void> => {
  await s3.send(new CreateBucketCommand({ Bucket: bucket })).catch((error: Error) => {
    if (!/BucketAlready/.test(error.name)) throw error;
  });
};

/** The bootstrap parameter the template's `BootstrapVersion` reads (a recent bootstrap). */
const BOOTSTRAP_VERSION_PARAMETER = '/cdk-bootstrap/hnb659fds/version';

/**
 * Publishes the stack's file assets to the emulator's bootstrap bucket and writes the bootstrap
 * version parameter: what `cdk bootstrap` and `cdk deploy` leave before CreateStack.
 */
export const publishAssets = async (
  server: EmulatorEndpoint,
  stack: SynthesizedStack,
  python: string,
  account: string = server.account,
): Promise<void> => {
  const clients = emulatorClientConfig(server, account);
  const s3 = new S3Client({ ...clients, forcePathStyle: true });
  const ssm = new SSMClient(clients);
  await ssm.send(
    new PutParameterCommand({
      Name: BOOTSTRAP_VERSION_PARAMETER,
      Value: '30',
      Type: 'String',
      Overwrite: true,
    }),
  );
  const manifest = JSON.parse(readFileSync(stack.assetManifest, 'utf8')) as {
    files?: Record<string, FileAsset>;
  };
  // The asset manifest's placeholders, filled in as the CDK CLI does.
  const resolve = (text: string) =>
    text.replaceAll(PLACEHOLDER_ACCOUNT, account).replaceAll(PLACEHOLDER_REGION, server.region);
  const zips = mkdtempSync(path.join(tmpdir(), 'deploy-assets-'));
  const buckets = new Set<string>();
  try {
    for (const asset of Object.values(manifest.files ?? {})) {
      const source = path.join(stack.assemblyDir, asset.source.path);
      const file =
        asset.source.packaging === 'zip' ? await zipDirectory(python, source, zips) : source;
      for (const destination of Object.values(asset.destinations)) {
        const bucket = resolve(destination.bucketName);
        if (!buckets.has(bucket)) {
          await createBucketOnce(s3, bucket);
          buckets.add(bucket);
        }
        await s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: resolve(destination.objectKey),
            Body: readFileSync(file),
          }),
        );
      }
    }
  } finally {
    rmSync(zips, { recursive: true, force: true });
  }
};

/** A stack that did not reach CREATE_COMPLETE, with the reasons its resources failed. */
export class StackCreateError extends Error {
  override readonly name = 'StackCreateError';
  constructor(
    readonly status: string,
    readonly reasons: readonly string[],
  ) {
    super(`CreateStack ended ${status}:\n${reasons.join('\n')}`);
  }
}

export interface DeployedStack {
  readonly stackName: string;
  /** OutputKey → OutputValue. */
  readonly outputs: Readonly<Record<string, string>>;
}

const failureReasons = async (cfn: CloudFormationClient, stackName: string) => {
  const { StackEvents = [] } = await cfn.send(
    new DescribeStackEventsCommand({ StackName: stackName }),
  );
  return StackEvents.filter((event) => event.ResourceStatus?.endsWith('FAILED')).map(
    (event) => `${event.LogicalResourceId}: ${event.ResourceStatusReason ?? event.ResourceStatus}`,
  );
};

/**
 * CreateStack of `template` (as given: the test passes the synthesized one unmodified, or a copy
 * with one fault) and waits for it to end. Throws `StackCreateError` unless CREATE_COMPLETE.
 */
export const deployTemplate = async (
  server: EmulatorEndpoint & Partial<Pick<MiniStackServer, 'recentOutput'>>,
  stackName: string,
  template: Record<string, unknown>,
  options: { readonly account?: string; readonly timeoutMs?: number } = {},
): Promise<DeployedStack> => {
  const account = options.account ?? server.account;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const clients = emulatorClientConfig(server, account);
  const cfn = new CloudFormationClient(clients);
  // Larger than TemplateBody's 51 200 bytes: from the bootstrap bucket, as `cdk deploy` does.
  const body = JSON.stringify(template);
  const bucket = assetBucket(server, account);
  const key = `templates/${stackName}-${createHash('sha256').update(body).digest('hex')}.json`;
  const s3 = new S3Client({ ...clients, forcePathStyle: true });
  await createBucketOnce(s3, bucket);
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  await cfn.send(
    new CreateStackCommand({
      StackName: stackName,
      TemplateURL: `https://s3.${server.region}.amazonaws.com/${bucket}/${key}`,
      Capabilities: ['CAPABILITY_IAM', 'CAPABILITY_NAMED_IAM'],
    }),
  );
  const deadline = Date.now() + timeoutMs;
  let stack: Stack | undefined;
  for (;;) {
    const { Stacks = [] } = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    stack = Stacks[0];
    const status = stack?.StackStatus ?? 'MISSING';
    if (!status.endsWith('_IN_PROGRESS')) break;
    if (Date.now() > deadline) throw new StackCreateError(`${status} after ${timeoutMs} ms`, []);
    await sleep(250);
  }
  if (stack?.StackStatus !== 'CREATE_COMPLETE') {
    throw new StackCreateError(
      `${stack?.StackStatus ?? 'MISSING'} (${stack?.StackStatusReason ?? 'no reason given'})`,
      [
        ...(await failureReasons(cfn, stackName)),
        // MiniStack says why a resource failed in its log more often than in the events.
        ...(server.recentOutput?.() ?? '')
          .split('\n')
          .filter((line) => /Failed to provision|ERROR/.test(line)),
      ],
    );
  }
  return {
    stackName,
    outputs: Object.fromEntries(
      (stack.Outputs ?? []).map((output) => [output.OutputKey ?? '', output.OutputValue ?? '']),
    ),
  };
};
