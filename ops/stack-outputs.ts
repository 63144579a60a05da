/**
 * The deployed stack's outputs: from CloudFormation `DescribeStacks`, or from the file
 * `cdk deploy --outputs-file` writes (for operators without DescribeStacks permission).
 */
import { readFile } from 'node:fs/promises';
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import * as z from 'zod';
import type { ActionName } from '../lambdas/actions';
import { actionOutputKeys, EVENT_BUS_OUTPUT_KEY } from '../lib/stack-outputs';
import { OpsError } from './errors';

export interface StackOutputs {
  readonly stackName: string;
  /** Where the values came from, for error messages: `stack X in eu-central-1` or a file. */
  readonly origin: string;
  readonly values: ReadonlyMap<string, string>;
}

export interface ActionQueues {
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
}

/** `cdk deploy --outputs-file`: `{ "<stack name>": { "<output key>": "<value>" } }`. */
const outputsFileSchema = z.record(z.string(), z.record(z.string(), z.string()));

/** Reads the outputs of `stackName` from a `cdk deploy --outputs-file` file. */
export const readOutputsFile = async (file: string, stackName: string): Promise<StackOutputs> => {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new OpsError(`Cannot read the outputs file ${file}: ${(error as Error).message}`);
  }
  let parsed: z.output<typeof outputsFileSchema>;
  try {
    parsed = outputsFileSchema.parse(JSON.parse(text));
  } catch {
    throw new OpsError(
      `${file} is not a cdk outputs file (expected {"<stack name>": {"<output key>": "<value>"}}, as written by \`cdk deploy --outputs-file\`).`,
    );
  }
  const outputs = parsed[stackName];
  if (outputs === undefined) {
    const stacks = Object.keys(parsed);
    throw new OpsError(
      `${file} has no outputs for stack "${stackName}" (it has: ${stacks.length > 0 ? stacks.join(', ') : 'none'}). Pass --stack <name> or --config <name> to pick the stack.`,
    );
  }
  return { stackName, origin: file, values: new Map(Object.entries(outputs)) };
};

const isMissingStack = (error: unknown): boolean =>
  error instanceof Error &&
  error.name === 'ValidationError' &&
  /does not exist/i.test(error.message);

/** Reads the outputs of a deployed stack with `DescribeStacks`. */
export const describeStackOutputs = async (
  cloudFormation: CloudFormationClient,
  stackName: string,
  configName: string,
): Promise<StackOutputs> => {
  const region = await cloudFormation.config.region();
  try {
    const { Stacks = [] } = await cloudFormation.send(
      new DescribeStacksCommand({ StackName: stackName }),
    );
    const stack = Stacks[0];
    if (stack === undefined) throw new Error('DescribeStacks returned no stack');
    const values = new Map<string, string>();
    for (const output of stack.Outputs ?? []) {
      if (output.OutputKey && output.OutputValue !== undefined) {
        values.set(output.OutputKey, output.OutputValue);
      }
    }
    return { stackName, origin: `stack ${stackName} (${region}, ${stack.StackStatus})`, values };
  } catch (error) {
    if (!isMissingStack(error)) throw error;
    throw new OpsError(
      `Stack "${stackName}" does not exist in region ${region}. Deploy it (npx cdk deploy -c config=${configName}), or point at the right one with --stack <name>, --region <region> or --outputs-file <cdk-outputs.json>.`,
    );
  }
};

/** One output; a clear error when the stack does not have it. */
export const requireOutput = (outputs: StackOutputs, key: string, hint: string): string => {
  const value = outputs.values.get(key);
  if (value === undefined || value === '') {
    throw new OpsError(`${outputs.origin} has no output "${key}". ${hint}`);
  }
  return value;
};

/** Source queue and DLQ URLs of one action. */
export const actionQueues = (
  outputs: StackOutputs,
  action: ActionName,
  configName: string,
): ActionQueues => {
  const keys = actionOutputKeys(action);
  const hint = `Is ${action} enabled in config/${configName}.json (actions.${action}.enabled) and the stack deployed from this version?`;
  return {
    queueUrl: requireOutput(outputs, keys.queueUrl, hint),
    deadLetterQueueUrl: requireOutput(outputs, keys.deadLetterQueueUrl, hint),
  };
};

/** Name (or ARN) of the bus action events go to. */
export const eventBusName = (outputs: StackOutputs): string =>
  requireOutput(
    outputs,
    EVENT_BUS_OUTPUT_KEY,
    'Was the stack deployed from this version of contact-center-sync?',
  );
