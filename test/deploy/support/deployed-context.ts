/**
 * What a deploy test file works with: AWS SDK clients for the emulated account (as its root,
 * over HTTPS trusting MiniStack's certificate), the stack's outputs, and the simulator's admin
 * endpoints (the platform's state and faults). Later deployed tests (the SCIM API) start here.
 */
import { Agent } from 'node:https';
import {
  CloudFormationClient,
  paginateListStackResources,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { inject } from 'vitest';
import type { ActionName } from '../../../lambdas/actions';
import { actionOutputKeys, EVENT_BUS_OUTPUT_KEY } from '../../../lib/stack-outputs';
import {
  type EmulatorEndpoint,
  emulatorClientConfig,
} from '../../../local/aws-emulator/deployed-stack';
import type { FaultSettings, StateSnapshot } from '../../../local/simulator';
import type { DeployedSetup } from './deployed-global-setup';

export interface DeployedContext {
  readonly setup: DeployedSetup;
  readonly emulator: EmulatorEndpoint;
  readonly clients: ReturnType<typeof clientsFor>;
  /** An output of the deployed stack; throws naming it when the stack has none such. */
  output(key: string): string;
  queueUrl(action: ActionName): string;
  deadLetterQueueUrl(action: ActionName): string;
  readonly eventBusName: string;
  readonly platform: PlatformAdmin;
  /** The physical id of the stack's resource whose logical id starts with `logicalIdPrefix`. */
  physicalId(logicalIdPrefix: string): Promise<string>;
}

/** The simulator's admin endpoints (loopback only). */
export interface PlatformAdmin {
  state(): Promise<StateSnapshot>;
  setFaults(faults: FaultSettings): Promise<void>;
  /** Rotates the platform's API key: the old one gets 401 from then on. */
  setApiKey(apiKey: string): Promise<void>;
}

const clientsFor = (emulator: EmulatorEndpoint, account?: string) => {
  const config = emulatorClientConfig(emulator, account);
  return {
    cloudFormation: new CloudFormationClient(config),
    cloudWatch: new CloudWatchClient(config),
    dynamoDb: new DynamoDBClient(config),
    events: new EventBridgeClient(config),
    lambda: new LambdaClient(config),
    logs: new CloudWatchLogsClient(config),
    s3: new S3Client({ ...config, forcePathStyle: true }),
    sfn: new SFNClient(config),
    sqs: new SQSClient(config),
  };
};

const platformAdmin = (baseUrl: string): PlatformAdmin => {
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${baseUrl}/__admin/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await response.json()) as unknown;
    if (!response.ok) throw new Error(`simulator ${method} ${path}: ${JSON.stringify(parsed)}`);
    return parsed;
  };
  return {
    state: async () => (await call('GET', 'state')) as StateSnapshot,
    setFaults: async (faults) => {
      await call('POST', 'faults', faults);
    },
    setApiKey: async (apiKey) => {
      await call('POST', 'api-key', { apiKey });
    },
  };
};

/** The deployment the global setup made, with clients for it (the account root's, or `account`'s). */
export const deployedContext = (account?: string): DeployedContext => {
  const setup = inject('deployed');
  const emulator: EmulatorEndpoint = {
    endpoint: setup.endpoint,
    region: setup.region,
    account: setup.account,
    httpsAgent: new Agent({ ca: setup.caCertificate, keepAlive: true }),
  };
  const output = (key: string): string => {
    const value = setup.outputs[key];
    if (value === undefined) throw new Error(`the deployed stack has no output ${key}`);
    return value;
  };
  const clients = clientsFor(emulator, account);
  return {
    setup,
    emulator,
    clients,
    output,
    queueUrl: (action) => output(actionOutputKeys(action).queueUrl),
    deadLetterQueueUrl: (action) => output(actionOutputKeys(action).deadLetterQueueUrl),
    eventBusName: output(EVENT_BUS_OUTPUT_KEY),
    platform: platformAdmin(setup.platformUrl),
    physicalId: async (prefix) => {
      const found: StackResourceSummary[] = [];
      for await (const page of paginateListStackResources(
        { client: clients.cloudFormation },
        { StackName: setup.stackName },
      )) {
        found.push(
          ...(page.StackResourceSummaries ?? []).filter((r) =>
            r.LogicalResourceId?.startsWith(prefix),
          ),
        );
      }
      if (found.length !== 1 || found[0]?.PhysicalResourceId === undefined) {
        throw new Error(`${found.length} resources of the stack start with ${prefix}, not 1`);
      }
      return found[0].PhysicalResourceId;
    },
  };
};
