/**
 * `send <action> <json-file|->`: validates every message with the action's schema first (so an
 * invalid file sends nothing), then sends them one by one to the action's queue or, with
 * `--event-bus`, as EventBridge events routed by `detail-type`.
 */
import { readFile } from 'node:fs/promises';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { type ActionName, parseMessage } from '../lambdas/actions';
import { declaredCorrelationId } from '../lambdas/core/entry/envelope';
import { allowedSourcesFor } from '../lib/config';
import type { Deployment, OpsCommand } from './deployment';
import { describeError, OpsError, UsageError } from './errors';
import { type OpsIo, writeLine } from './io';
import { eventBusName } from './stack-outputs';

export interface SendOptions {
  readonly action: ActionName;
  /** A file path, or `-` for stdin. */
  readonly input: string;
  /** Put EventBridge events on the stack's bus instead of sending to the queue. */
  readonly eventBus: boolean;
  /** EventBridge `source`; defaults to the action's first allowed source. */
  readonly source?: string | undefined;
}

const readInput = async (input: string, io: OpsIo): Promise<string> => {
  if (input !== '-') {
    try {
      return await readFile(input, 'utf8');
    } catch (error) {
      throw new OpsError(`Cannot read ${input}: ${(error as Error).message}`);
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin ?? process.stdin) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
};

/** The messages in the input: one JSON object, or a JSON array of them. */
export const decodeMessages = (text: string, inputName: string): unknown[] => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch (error) {
    // The parser's message quotes a few characters around the error, not whole values.
    throw new OpsError(`${inputName} is not valid JSON: ${(error as Error).message}`);
  }
  const messages = Array.isArray(decoded) ? decoded : [decoded];
  if (messages.length === 0)
    throw new OpsError(`${inputName} holds an empty array: nothing to send`);
  return messages;
};

/** Every problem of every message; empty when all are valid. Never echoes values. */
export const validateMessages = (action: ActionName, messages: readonly unknown[]): string[] =>
  messages.flatMap((message, index) => {
    const result = parseMessage(action, message);
    if (result.success) return [];
    const which =
      messages.length === 1 ? 'The message' : `Message ${index + 1} of ${messages.length}`;
    return [`${which} is not a valid ${action} message: ${result.error}`];
  });

export const chooseSource = (
  deployment: Deployment,
  action: ActionName,
  wanted?: string,
): string => {
  const allowed = allowedSourcesFor(deployment.config, action);
  if (wanted === undefined) {
    const first = allowed[0];
    if (first === undefined)
      throw new OpsError(`config/${deployment.configName}.json allows no source for ${action}`);
    return first;
  }
  // The rule only matches these sources: any other event would be accepted and silently dropped.
  if (!allowed.includes(wanted)) {
    throw new UsageError(
      `--source ${wanted} is not routed to ${action}: its rule accepts ${allowed.join(', ')} (config/${deployment.configName}.json)`,
    );
  }
  return wanted;
};

type Sender = (message: unknown) => Promise<string>;

const queueSender = async (deployment: Deployment, action: ActionName): Promise<Sender> => {
  const { queueUrl } = await deployment.queues(action);
  const sqs = deployment.sqs();
  return async (message) => {
    const { MessageId } = await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }),
    );
    return `message id ${MessageId ?? '(none)'}`;
  };
};

const busSender = async (
  deployment: Deployment,
  action: ActionName,
  source: string,
): Promise<Sender> => {
  const busName = eventBusName(await deployment.outputs());
  const events = deployment.eventBridge();
  return async (message) => {
    const response = await events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: busName,
            Source: source,
            DetailType: action,
            Detail: JSON.stringify(message),
          },
        ],
      }),
    );
    const entry = response.Entries?.[0];
    // PutEvents answers 200 even when it rejects the entry.
    if ((response.FailedEntryCount ?? 0) > 0 || entry?.EventId === undefined) {
      throw new OpsError(
        `PutEvents rejected the event: ${entry?.ErrorCode ?? 'unknown error'}${entry?.ErrorMessage ? ` (${entry.ErrorMessage})` : ''}`,
      );
    }
    return `event id ${entry.EventId}`;
  };
};

/** Returns the exit code. */
/** `message 3 was`, `messages 3 to 5 were`: the unsent tail after a failed send. */
const unsentTail = (first: number, last: number): string =>
  first === last ? `message ${first} was` : `messages ${first} to ${last} were`;

export const runSend: OpsCommand<SendOptions> = async (deployment, options, io) => {
  const { action } = options;
  const inputName = options.input === '-' ? 'stdin' : options.input;
  const messages = decodeMessages(await readInput(options.input, io), inputName);
  const problems = validateMessages(action, messages);
  if (problems.length > 0) {
    for (const problem of problems) writeLine(io.stderr, problem);
    writeLine(io.stderr, 'Nothing was sent.');
    return 1;
  }

  const source = options.eventBus ? chooseSource(deployment, action, options.source) : undefined;
  const send =
    source === undefined
      ? await queueSender(deployment, action)
      : await busSender(deployment, action, source);
  const target =
    source === undefined
      ? `${action} queue`
      : `bus ${eventBusName(await deployment.outputs())} (source ${source})`;

  for (const [index, message] of messages.entries()) {
    const label = `${index + 1}/${messages.length}`;
    const correlation = declaredCorrelationId(message);
    let sent: string;
    try {
      sent = await send(message);
    } catch (error) {
      writeLine(
        io.stderr,
        `Message ${label} could not be sent to the ${target}: ${describeError(error)}`,
      );
      // Stop at the first failure: what follows would probably fail the same way, and the
      // operator can resend exactly the unsent tail.
      writeLine(
        io.stderr,
        `Sent ${index} of ${messages.length}; ${unsentTail(index + 1, messages.length)} not sent.`,
      );
      return 1;
    }
    writeLine(
      io.stdout,
      `sent ${label} to the ${target}: ${sent}${correlation === undefined ? '' : `, correlationId ${correlation}`}`,
    );
  }
  return 0;
};
