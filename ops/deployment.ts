/**
 * The environment a command works on: its config (`--config`), stack name (`--stack` or the
 * config's), region, AWS clients and the stack's outputs (read once, on first use).
 *
 * Clients use the standard SDK configuration only (credential chain, AWS_REGION,
 * AWS_ENDPOINT_URL_<SERVICE>); the region is pinned only by `--region` or the config's
 * `deployment.region`, because that is where the stack lives.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { ActionName } from '../lambdas/actions';
import { ledgerTableClient } from '../lambdas/core/aws/ledger-table';
import { ConfigError, type DeploymentConfig, loadConfig, stackNameFor } from '../lib/config';
import { OpsError } from './errors';
import type { OpsClients, OpsIo } from './io';
import {
  type ActionQueues,
  actionQueues,
  describeStackOutputs,
  readOutputsFile,
  type StackOutputs,
} from './stack-outputs';

export interface DeploymentOptions {
  /** Name of `config/<name>.json`. */
  readonly configName: string;
  /** Overrides the config's stack name. */
  readonly stackName?: string | undefined;
  /** A `cdk deploy --outputs-file` file to read instead of calling DescribeStacks. */
  readonly outputsFile?: string | undefined;
  readonly region?: string | undefined;
}

export interface Deployment {
  readonly configName: string;
  readonly config: DeploymentConfig;
  readonly stackName: string;
  sqs(): SQSClient;
  eventBridge(): EventBridgeClient;
  /** For the entity ledger (trace). */
  dynamoDb(): DynamoDBClient;
  outputs(): Promise<StackOutputs>;
  /** The action's source queue and DLQ URLs; a clear error when the stack has no such outputs. */
  queues(action: ActionName): Promise<ActionQueues>;
}

/** One ops subcommand on a deployment: its parsed options in, its exit code out. */
export type OpsCommand<Options> = (
  deployment: Deployment,
  options: Options,
  io: OpsIo,
) => Promise<number>;

const loadDeploymentConfig = (name: string): DeploymentConfig => {
  try {
    return loadConfig(name);
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new OpsError(`Cannot use config "${name}":\n${error.message}`);
    }
    throw error;
  }
};

const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
};

export const openDeployment = (
  options: DeploymentOptions,
  clients: OpsClients = {},
): Deployment => {
  const config = loadDeploymentConfig(options.configName);
  const stackName = options.stackName ?? stackNameFor(config);
  const region = options.region ?? config.deployment?.region;
  const clientConfig = region === undefined ? {} : { region };
  const cloudFormation = once(
    () => clients.cloudFormation ?? new CloudFormationClient(clientConfig),
  );
  const outputs = once(() =>
    options.outputsFile === undefined
      ? describeStackOutputs(cloudFormation(), stackName, options.configName)
      : readOutputsFile(options.outputsFile, stackName),
  );
  return {
    configName: options.configName,
    config,
    stackName,
    sqs: once(() => clients.sqs ?? new SQSClient(clientConfig)),
    eventBridge: once(() => clients.eventBridge ?? new EventBridgeClient(clientConfig)),
    // Set up as the functions' stores set theirs up.
    dynamoDb: once(() => clients.dynamoDb ?? ledgerTableClient(clientConfig)),
    outputs,
    queues: async (action) => actionQueues(await outputs(), action, options.configName),
  };
};
