/**
 * What the operator-command tests need: one action's queues (and bus rule) in moto, the stack
 * outputs that point at them (as a `cdk deploy --outputs-file` file or a CloudFormation stack),
 * and dead letters as the handler writes them.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { type Message, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ActionName } from '../../../lambdas/actions';
import { SqsDeadLetterSink } from '../../../lambdas/core/aws';
import type { DeadLetterReason } from '../../../lambdas/core/entry/ports';
import { actionOutputKeys, EVENT_BUS_OUTPUT_KEY } from '../../../lib/stack-outputs';
import {
  createQueueWithDlq,
  motoCloudFormationClient,
  type TestQueueWithDlq,
  uniqueName,
} from '../../support/aws-clients';
import { type OpsRun, type OpsRunOptions, runOpsCaptured } from '../../support/ops-run';

export interface ActionStack {
  readonly action: ActionName;
  readonly stackName: string;
  readonly queues: TestQueueWithDlq;
  readonly outputs: Record<string, string>;
  /** A `cdk deploy --outputs-file` file holding `outputs` under `stackName`. */
  readonly outputsFile: string;
  /** `--stack <name> --outputs-file <file>`. */
  readonly args: readonly string[];
  /** The ops CLI in-process against this stack: `argv` followed by `args`. */
  ops(argv: readonly string[], options?: OpsRunOptions): Promise<OpsRun>;
}

export const tempDir = (): Promise<string> => mkdtemp(path.join(tmpdir(), 'ops-test-'));

/** Queues of one action (source with its redrive DLQ) and the outputs file naming them. */
export const createActionStack = async (
  sqs: SQSClient,
  action: ActionName,
  options: { eventBusName?: string; maxReceiveCount?: number } = {},
): Promise<ActionStack> => {
  const stackName = uniqueName('ops-stack');
  const queues = await createQueueWithDlq(sqs, {
    name: uniqueName(action.slice(0, 30)),
    maxReceiveCount: options.maxReceiveCount ?? 5,
  });
  const keys = actionOutputKeys(action);
  const outputs: Record<string, string> = {
    [keys.queueUrl]: queues.queueUrl,
    [keys.deadLetterQueueUrl]: queues.deadLetterQueue.queueUrl,
    [EVENT_BUS_OUTPUT_KEY]: options.eventBusName ?? 'unused-bus',
  };
  const outputsFile = path.join(await tempDir(), 'cdk-outputs.json');
  await writeFile(outputsFile, JSON.stringify({ [stackName]: outputs }, null, 2));
  const args = ['--stack', stackName, '--outputs-file', outputsFile];
  return {
    action,
    stackName,
    queues,
    outputs,
    outputsFile,
    args,
    ops: (argv, runOptions) => runOpsCaptured([...argv, ...args], runOptions),
  };
};

/** A CloudFormation stack in moto whose template holds only the given outputs. */
export const createOutputsOnlyStack = async (outputs: Record<string, string>): Promise<string> => {
  const stackName = uniqueName('ops-cfn');
  await motoCloudFormationClient().send(
    new CreateStackCommand({
      StackName: stackName,
      TemplateBody: JSON.stringify({
        // Real CloudFormation needs at least one resource; this one creates nothing.
        Resources: { Placeholder: { Type: 'AWS::CloudFormation::WaitConditionHandle' } },
        Outputs: Object.fromEntries(
          Object.entries(outputs).map(([key, value]) => [key, { Value: value }]),
        ),
      }),
    }),
  );
  return stackName;
};

export const reasonFor = (
  action: ActionName,
  index: number,
  overrides: Partial<DeadLetterReason> = {},
): DeadLetterReason => ({
  action,
  errorCategory: 'permanent',
  errorCode: 'VALIDATION',
  errorMessage: `loginUserId: is required (case ${index})`,
  sourceMessageId: `source-${index}`,
  correlationId: `corr-${index}`,
  ...overrides,
});

/** Dead letters exactly as the handler writes them (body + reason attributes). */
export const seedDeadLetters = async (
  sqs: SQSClient,
  stack: ActionStack,
  bodies: readonly string[],
): Promise<void> => {
  const sink = new SqsDeadLetterSink({
    queueUrl: stack.queues.deadLetterQueue.queueUrl,
    client: sqs,
  });
  for (const [index, body] of bodies.entries()) {
    await sink.send(body, reasonFor(stack.action, index));
  }
};

/** An event EventBridge could not deliver to the rule's target, as it lands in the rule's DLQ. */
export const seedEventBridgeDeadLetter = async (
  sqs: SQSClient,
  stack: ActionStack,
  detail: unknown,
): Promise<string> => {
  const body = JSON.stringify({
    version: '0',
    id: 'event-1',
    'detail-type': stack.action,
    source: 'com.examplecorp.hr',
    detail,
  });
  const attribute = (value: string) => ({ DataType: 'String', StringValue: value });
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: stack.queues.deadLetterQueue.queueUrl,
      MessageBody: body,
      MessageAttributes: {
        ERROR_CODE: attribute('SDK_CLIENT_ERROR'),
        ERROR_MESSAGE: attribute('Failed to send message to the target queue'),
        RULE_ARN: attribute('arn:aws:events:us-east-1:123456789012:rule/bus/add-user'),
        TARGET_ARN: attribute(stack.queues.queueArn),
      },
    }),
  );
  return body;
};

export const bodiesOf = (messages: readonly Message[]): string[] =>
  messages.map((m) => m.Body ?? '').sort();
