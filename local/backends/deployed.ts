/**
 * `npm start -- --deployed`: the project's stack deployed into MiniStack, where the run does not
 * drive the handlers itself. It puts events on the deployed bus, and the deployed rules, event
 * source mappings and functions (MiniStack runs them as processes, IAM enforced) do the rest.
 * What the run can observe of each message, and only that:
 * - each receive's outcome as the function logged it (its Powertools line in the function's
 *   log group: `message applied`, `message dead-lettered`, …, with the code, the correlation id
 *   and the receive count): how the run tells applied from already in place and skipped;
 * - the dead letters in the deployed DLQs, with their reason attributes;
 * - the read actions' result events, through a capture rule on the bus;
 * - the source queues' approximate counts (nothing left in them).
 *
 * MiniStack 1.5.33 hands a warm function's output to its log group per invocation, waiting at
 * most 50 ms after the answer for the first line: a line later than that (a busy machine) waits
 * in the worker until its next invocation. `flushLogs` gives a function that next invocation,
 * a payload every action refuses before doing anything (`{}`: no SQS batch, no message).
 */
import { CloudFormationClient, paginateListStackResources } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, paginateFilterLogEvents } from '@aws-sdk/client-cloudwatch-logs';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  ACTION_NAMES,
  type ActionName,
  RESULT_EVENT_SOURCE,
  resultDetailType,
} from '../../lambdas/actions';
import type { DeploymentConfig } from '../../lib/config';
import { actionOutputKeys, EVENT_BUS_OUTPUT_KEY, pascalCase } from '../../lib/stack-outputs';
import { peekMessages, viewDeadLetter } from '../../ops/dead-letters';
import type { EventBridgeEvent } from '../../testkit';
import { emulatorClientConfig } from '../aws-emulator/deployed-stack';
import { type Deployment, startDeployment, withPlatformAt } from '../aws-emulator/deployment';
import { captureBusEvents, type EventCapture } from '../aws-emulator/event-capture';
import type { ToolsProgress } from '../aws-emulator/python-tools';
import { reasonOf } from './aws-emulator';
import type { DeadLetterFound } from './backend';
import { putBusEvents } from './put-bus-events';

/** How a receive ended, by the function's log line's `message` (lambdas/core/disposition.ts). */
export type LoggedKind = 'applied' | 'retry' | 'dead-lettered' | 'held';

const LOGGED_KINDS: ReadonlyMap<string, LoggedKind> = new Map([
  ['message applied', 'applied'],
  ['desired state already in place', 'applied'],
  ['message not sent: nothing of it is left to apply', 'applied'],
  ['retryable failure, message will be redelivered', 'retry'],
  ['message not dead-lettered', 'retry'],
  ['message dead-lettered', 'dead-lettered'],
  ['message held by the mass-delete brake', 'held'],
]);

/** One receive's outcome as a deployed function logged it. */
export interface LoggedDisposition {
  readonly action: ActionName;
  readonly kind: LoggedKind;
  readonly correlationId: string;
  /** The SQS message id. */
  readonly messageId: string;
  readonly receiveCount: number;
  readonly code: string;
  /** The reason, when the function logs it (only reasons it wrote itself). */
  readonly reason?: string;
  /** When it was logged (epoch ms): orders the receives of one message. */
  readonly timestamp: number;
}

/** A dead letter in a deployed DLQ. */
export interface DeployedDeadLetter extends DeadLetterFound {
  /** The DLQ message's id (the handler sent a copy: not the source message's id). */
  readonly messageId: string;
}

/** What the run sees of the deployed stack at one moment. */
export interface DeployedObservation {
  readonly dispositions: readonly LoggedDisposition[];
  readonly deadLetters: readonly DeployedDeadLetter[];
  /** Result events of reads, as published on the bus. */
  readonly results: readonly EventBridgeEvent[];
  /** Messages still in the source queues (visible or in flight), by the queues' counts. */
  readonly queued: number;
}

const parseLine = (action: ActionName, message: string, timestamp: number) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const line = parsed as Record<string, unknown>;
  const kind = typeof line.message === 'string' ? LOGGED_KINDS.get(line.message) : undefined;
  if (kind === undefined || typeof line.messageId !== 'string') return undefined;
  const disposition: LoggedDisposition = {
    action,
    kind,
    correlationId: typeof line.correlationId === 'string' ? line.correlationId : line.messageId,
    messageId: line.messageId,
    receiveCount: typeof line.receiveCount === 'number' ? line.receiveCount : 1,
    code: typeof line.code === 'string' ? line.code : 'UNKNOWN',
    ...(typeof line.reason === 'string' ? { reason: line.reason } : {}),
    timestamp,
  };
  return disposition;
};

export interface StartDeployedOptions {
  /** The deployment config (config/example.json for npm start); its platform is replaced. */
  readonly config: DeploymentConfig;
  /** The simulator the functions call. */
  readonly platformBaseUrl: string;
  readonly apiKey: string;
  readonly progress?: ToolsProgress;
}

export class DeployedStackRun {
  readonly #deployment: Deployment;
  readonly #events: EventBridgeClient;
  readonly #sqs: SQSClient;
  readonly #logs: CloudWatchLogsClient;
  readonly #lambda: LambdaClient;
  readonly #cloudFormation: CloudFormationClient;
  #functionNames: Map<ActionName, string> | undefined;
  readonly #results: EventCapture;
  readonly #busName: string;
  readonly #actions: readonly ActionName[];
  readonly #startedAt: number;
  readonly #deadLetters = new Map<string, DeployedDeadLetter>();

  private constructor(
    deployment: Deployment,
    clients: {
      events: EventBridgeClient;
      sqs: SQSClient;
      logs: CloudWatchLogsClient;
      lambda: LambdaClient;
      cloudFormation: CloudFormationClient;
    },
    results: EventCapture,
    actions: readonly ActionName[],
  ) {
    this.#deployment = deployment;
    this.#events = clients.events;
    this.#sqs = clients.sqs;
    this.#logs = clients.logs;
    this.#lambda = clients.lambda;
    this.#cloudFormation = clients.cloudFormation;
    this.#results = results;
    this.#busName = this.#output(EVENT_BUS_OUTPUT_KEY);
    this.#actions = actions;
    this.#startedAt = Date.now();
  }

  /** Deploys `config`'s stack with its platform at the simulator; resolves once it is created. */
  static async start(options: StartDeployedOptions): Promise<DeployedStackRun> {
    const deployment = await startDeployment({
      config: withPlatformAt(options.config, options.platformBaseUrl),
      apiKey: options.apiKey,
      ...(options.progress ? { progress: options.progress } : {}),
    });
    try {
      const clientConfig = emulatorClientConfig(deployment.server);
      const events = new EventBridgeClient(clientConfig);
      const sqs = new SQSClient(clientConfig);
      const logs = new CloudWatchLogsClient(clientConfig);
      const actions = ACTION_NAMES.filter((action) => options.config.actions[action].enabled);
      const busName = deployment.project.outputs[EVENT_BUS_OUTPUT_KEY] ?? '';
      const results = await captureBusEvents({ sqs, events }, busName, {
        source: [RESULT_EVENT_SOURCE],
        'detail-type': actions.map(resultDetailType),
      });
      return new DeployedStackRun(
        deployment,
        {
          events,
          sqs,
          logs,
          lambda: new LambdaClient(clientConfig),
          cloudFormation: new CloudFormationClient(clientConfig),
        },
        results,
        actions,
      );
    } catch (error) {
      await deployment.stop();
      throw error;
    }
  }

  /** For the run's header. */
  get description(): string {
    const { server, project } = this.#deployment;
    return `stack ${project.stackName} deployed in MiniStack ${server.endpoint} (IAM enforced): its bus and rules, queues, event source mappings, functions, DLQs, secret and ledger table`;
  }

  /** The emulated account the stack is in. */
  get account(): string {
    return this.#deployment.server.account;
  }

  #output(key: string): string {
    const value = this.#deployment.project.outputs[key];
    if (value === undefined) throw new Error(`the deployed stack has no output ${key}`);
    return value;
  }

  /** PutEvents on the deployed bus; the ids EventBridge gave the events, in input order. */
  putEvents(events: readonly EventBridgeEvent[]): Promise<string[]> {
    return putBusEvents(this.#events, this.#busName, events);
  }

  async #dispositions(): Promise<LoggedDisposition[]> {
    const found: LoggedDisposition[] = [];
    for (const action of this.#actions) {
      const logGroupName = this.#output(actionOutputKeys(action).logGroupName);
      for await (const page of paginateFilterLogEvents(
        { client: this.#logs },
        { logGroupName, startTime: this.#startedAt - 60_000 },
      )) {
        for (const event of page.events ?? []) {
          const line = parseLine(action, event.message ?? '', event.timestamp ?? 0);
          if (line) found.push(line);
        }
      }
    }
    return found.sort((a, b) => a.timestamp - b.timestamp);
  }

  /** Dead letters, each read once and left in place (as `npm run ops -- dlq list` reads). */
  async #readDeadLetters(): Promise<DeployedDeadLetter[]> {
    for (const action of this.#actions) {
      const dlqUrl = this.#output(actionOutputKeys(action).deadLetterQueueUrl);
      const { messages } = await peekMessages(this.#sqs, dlqUrl);
      for (const message of messages) {
        const view = viewDeadLetter(message);
        if (this.#deadLetters.has(view.messageId)) continue;
        const reason = reasonOf(action, view);
        this.#deadLetters.set(view.messageId, {
          action,
          messageId: view.messageId,
          body: view.body,
          ...(reason ? { reason } : {}),
        });
      }
    }
    return [...this.#deadLetters.values()];
  }

  async #queued(): Promise<number> {
    let total = 0;
    for (const action of this.#actions) {
      const { Attributes = {} } = await this.#sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: this.#output(actionOutputKeys(action).queueUrl),
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      total +=
        Number(Attributes.ApproximateNumberOfMessages ?? 0) +
        Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
    }
    return total;
  }

  async observe(): Promise<DeployedObservation> {
    return {
      dispositions: await this.#dispositions(),
      deadLetters: await this.#readDeadLetters(),
      results: await this.#results.collect(),
      queued: await this.#queued(),
    };
  }

  /** Each action's function name, from the stack's resources (`<Action>Function…`). */
  async #functionName(action: ActionName): Promise<string> {
    if (this.#functionNames === undefined) {
      const names = new Map<ActionName, string>();
      for await (const page of paginateListStackResources(
        { client: this.#cloudFormation },
        { StackName: this.#deployment.project.stackName },
      )) {
        for (const resource of page.StackResourceSummaries ?? []) {
          if (resource.ResourceType !== 'AWS::Lambda::Function') continue;
          const action = this.#actions.find((a) =>
            resource.LogicalResourceId?.startsWith(`${pascalCase(a)}Function`),
          );
          if (action && resource.PhysicalResourceId) names.set(action, resource.PhysicalResourceId);
        }
      }
      this.#functionNames = names;
    }
    const name = this.#functionNames.get(action);
    if (name === undefined) throw new Error(`the deployed stack has no function for ${action}`);
    return name;
  }

  /**
   * Invokes each action's function once with `{}`, which every action refuses before it reads
   * anything, so the log lines MiniStack still holds from its last invocation reach the log group.
   */
  async flushLogs(actions: readonly ActionName[]): Promise<void> {
    for (const action of new Set(actions)) {
      await this.#lambda.send(
        new InvokeCommand({
          FunctionName: await this.#functionName(action),
          Payload: new TextEncoder().encode('{}'),
        }),
      );
    }
  }

  /** MiniStack's recent warnings and errors (a function that failed or timed out says so here). */
  emulatorProblems(max = 12): string[] {
    return this.#deployment.server
      .recentOutput()
      .split('\n')
      .filter((line) => /ERROR|WARNING|Traceback|Exception|timed out/i.test(line))
      .slice(-max);
  }

  async close(): Promise<void> {
    await this.#results.remove().catch(() => {
      // The emulator goes away with everything in it.
    });
    await this.#deployment.stop();
  }
}
