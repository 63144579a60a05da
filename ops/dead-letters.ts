/**
 * Reading a DLQ without consuming it (`dlq list`, `dlq export`).
 *
 * SQS has no "peek": a message can only be seen by receiving it. We receive with a visibility
 * timeout (`PEEK_HOLD_SECONDS`) so that each message is seen once while we collect, then set
 * every held message's visibility back to 0, so it is at once visible to other readers again.
 * Receiving with VisibilityTimeout 0 instead would let SQS hand out the same message over and
 * over, with no way to know when all were seen. Effects on others: while a command runs, the
 * messages it holds are invisible (if it is killed, they reappear after at most
 * `PEEK_HOLD_SECONDS`), and every peek adds one to a message's ApproximateReceiveCount (harmless
 * for a DLQ, which has no redrive policy of its own).
 */
import { open, rm } from 'node:fs/promises';
import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { ActionName } from '../lambdas/actions';
import type { DeadLetterReason } from '../lambdas/core/entry/ports';
import { counted } from './counted';
import type { OpsCommand } from './deployment';
import { OpsError } from './errors';
import { type OpsIo, writeLine } from './io';
import { redactedPreview } from './redact';

/** Message attributes the handler attaches to a dead letter (`DeadLetterReason`). */
export const REASON_ATTRIBUTES = [
  'action',
  'errorCategory',
  'errorCode',
  'errorMessage',
  'sourceMessageId',
  'correlationId',
] as const satisfies readonly (keyof DeadLetterReason)[];

export type ReasonAttribute = (typeof REASON_ATTRIBUTES)[number];

// Fails to compile when DeadLetterReason gains a field this list does not have.
const reasonListIsComplete: [Exclude<keyof DeadLetterReason, ReasonAttribute>] extends [never]
  ? true
  : false = true;
void reasonListIsComplete;

/**
 * Message attributes EventBridge attaches to an event it could not deliver to the rule's target
 * (the stack makes the action's DLQ the rules' dead-letter queue too).
 */
export const EVENTBRIDGE_FAILURE_ATTRIBUTES = [
  'ERROR_CODE',
  'ERROR_MESSAGE',
  'EXHAUSTED_RETRY_CONDITION',
  'RETRY_ATTEMPTS',
  'RULE_ARN',
  'TARGET_ARN',
] as const;

export type EventBridgeFailureAttribute = (typeof EVENTBRIDGE_FAILURE_ATTRIBUTES)[number];

const isReasonAttribute = (name: string): name is ReasonAttribute =>
  (REASON_ATTRIBUTES as readonly string[]).includes(name);

const isEventBridgeFailureAttribute = (name: string): name is EventBridgeFailureAttribute =>
  (EVENTBRIDGE_FAILURE_ATTRIBUTES as readonly string[]).includes(name);

/** Attributes that say why a message is a dead letter; a redrive strips them. */
export const isDeadLetterAttribute = (name: string): boolean =>
  isReasonAttribute(name) || isEventBridgeFailureAttribute(name);

/** Seconds a listed message stays invisible at most (only if the command dies before releasing it). */
export const PEEK_HOLD_SECONDS = 120;
/** Exit code of a command stopped with Ctrl-C (128 + SIGINT). */
export const INTERRUPTED_EXIT_CODE = 130;
/** Default `--max` of `dlq list`. */
export const DEFAULT_LIST_MAX = 100;

/** Visible messages of a queue, as SQS estimates them. */
export const approximateVisibleCount = async (
  sqs: SQSClient,
  queueUrl: string,
): Promise<number> => {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages'],
    }),
  );
  return Number(Attributes.ApproximateNumberOfMessages ?? 0);
};

export interface ReceiveOptions {
  readonly maxMessages: number;
  /** Seconds the received messages stay invisible; the queue's own setting when absent. */
  readonly visibilityTimeout?: number;
  /** Long polling asks every SQS server; 0 only samples some of them. */
  readonly waitSeconds: number;
}

/** One ReceiveMessage with all system and message attributes. */
export const receiveBatch = async (
  sqs: SQSClient,
  queueUrl: string,
  options: ReceiveOptions,
): Promise<Message[]> => {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: Math.min(10, Math.max(1, options.maxMessages)),
      VisibilityTimeout: options.visibilityTimeout,
      WaitTimeSeconds: options.waitSeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  return Messages.filter((m) => m.MessageId !== undefined && m.ReceiptHandle !== undefined);
};

/** Makes held messages visible again at once. Returns how many could not be released. */
export const releaseMessages = async (
  sqs: SQSClient,
  queueUrl: string,
  receiptHandles: readonly string[],
): Promise<number> => {
  let failed = 0;
  for (let start = 0; start < receiptHandles.length; start += 10) {
    const chunk = receiptHandles.slice(start, start + 10);
    try {
      const result = await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((handle, index) => ({
            Id: String(index),
            ReceiptHandle: handle,
            VisibilityTimeout: 0,
          })),
        }),
      );
      failed += result.Failed?.length ?? 0;
    } catch {
      // Not fatal: the messages reappear by themselves when their visibility timeout ends.
      failed += chunk.length;
    }
  }
  return failed;
};

export interface PeekOptions {
  /** Stop after this many messages. */
  readonly max?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface PeekResult {
  readonly messages: readonly Message[];
  /** `ApproximateNumberOfMessages` before the peek. */
  readonly approximateCount: number;
  /** Messages that could not be made visible again (they will be after `PEEK_HOLD_SECONDS`). */
  readonly notReleased: number;
}

/** Every message in the queue (up to `max`), left in place and visible again afterwards. */
export const peekMessages = async (
  sqs: SQSClient,
  queueUrl: string,
  options: PeekOptions = {},
): Promise<PeekResult> => {
  const approximateCount = await approximateVisibleCount(sqs, queueUrl);
  const max = options.max ?? Number.POSITIVE_INFINITY;
  // By message id, with the newest receipt handle (the only one SQS still honours).
  const held = new Map<string, Message>();
  let notReleased = 0;
  try {
    while (held.size < max && !options.signal?.aborted) {
      const batch = await receiveBatch(sqs, queueUrl, {
        maxMessages: max - held.size,
        visibilityTimeout: PEEK_HOLD_SECONDS,
        // Long-poll while we expect more; a final short poll confirms the queue is done.
        waitSeconds: held.size < approximateCount ? 1 : 0,
      });
      let fresh = 0;
      for (const message of batch) {
        const id = message.MessageId ?? '';
        if (!held.has(id)) fresh += 1;
        held.set(id, message);
      }
      if (fresh === 0) break;
    }
  } finally {
    const handles = [...held.values()].flatMap((m) => (m.ReceiptHandle ? [m.ReceiptHandle] : []));
    notReleased = await releaseMessages(sqs, queueUrl, handles);
  }
  return { messages: [...held.values()], approximateCount, notReleased };
};

// ---------------------------------------------------------------------------------------------
// What a dead letter says
// ---------------------------------------------------------------------------------------------

const isoTime = (epochMillis: string | undefined): string | undefined => {
  const value = Number(epochMillis);
  return epochMillis === undefined || !Number.isFinite(value)
    ? undefined
    : new Date(value).toISOString();
};

export interface DeadLetterView {
  readonly messageId: string;
  /** When the message was sent: to the DLQ by the handler, or to the source queue when SQS moved it. */
  readonly sentAt: string | undefined;
  readonly firstReceivedAt: string | undefined;
  readonly reason: Partial<Record<ReasonAttribute, string>>;
  /** Set when EventBridge could not deliver the event to the source queue. */
  readonly deliveryFailure: Partial<Record<EventBridgeFailureAttribute, string>>;
  /** Message attributes that are neither (e.g. set by the producer). */
  readonly otherAttributes: Record<string, MessageAttributeValue>;
  readonly body: string;
}

export const viewDeadLetter = (message: Message): DeadLetterView => {
  const reason: Partial<Record<ReasonAttribute, string>> = {};
  const deliveryFailure: Partial<Record<EventBridgeFailureAttribute, string>> = {};
  const otherAttributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    const text = value.StringValue;
    if (isReasonAttribute(name) && text !== undefined) reason[name] = text;
    else if (isEventBridgeFailureAttribute(name) && text !== undefined)
      deliveryFailure[name] = text;
    else otherAttributes[name] = value;
  }
  return {
    messageId: message.MessageId ?? '',
    sentAt: isoTime(message.Attributes?.SentTimestamp),
    firstReceivedAt: isoTime(message.Attributes?.ApproximateFirstReceiveTimestamp),
    reason,
    deliveryFailure,
    otherAttributes,
    body: message.Body ?? '',
  };
};

/** The lines `dlq list` prints for one dead letter. */
export const formatDeadLetter = (
  view: DeadLetterView,
  position: number,
  showBody: boolean,
): string[] => {
  const lines = [
    `[${position}] message ${view.messageId}  sent ${view.sentAt ?? '?'}  first received ${view.firstReceivedAt ?? '?'}`,
  ];
  const field = (name: string, value: string): void => {
    lines.push(`    ${name.padEnd(16)}${value}`);
  };
  const reasons = REASON_ATTRIBUTES.filter((name) => view.reason[name] !== undefined);
  const failures = EVENTBRIDGE_FAILURE_ATTRIBUTES.filter(
    (name) => view.deliveryFailure[name] !== undefined,
  );
  if (reasons.length === 0 && failures.length > 0) {
    lines.push('    (EventBridge could not deliver this event to the source queue)');
  } else if (reasons.length === 0) {
    lines.push(
      '    (no reason attributes: SQS moved it here after maxReceiveCount receives, e.g. the handler timed out or crashed)',
    );
  }
  for (const name of reasons) field(name, view.reason[name] ?? '');
  for (const name of failures) field(name, view.deliveryFailure[name] ?? '');
  const others = Object.keys(view.otherAttributes);
  if (others.length > 0) field('attributes', others.join(', '));
  if (showBody) field('body', view.body);
  else field('body', `${redactedPreview(view.body)}  (redacted; --show-body prints it whole)`);
  return lines;
};

/** One line of `dlq export`: everything needed to fix the message offline and send it again. */
export const exportRecord = (message: Message): Record<string, unknown> => {
  const view = viewDeadLetter(message);
  const messageAttributes = Object.fromEntries(
    Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
      name,
      value.BinaryValue === undefined
        ? { DataType: value.DataType, StringValue: value.StringValue }
        : {
            DataType: value.DataType,
            BinaryValue: Buffer.from(value.BinaryValue).toString('base64'),
          },
    ]),
  );
  return {
    messageId: view.messageId,
    sentAt: view.sentAt,
    firstReceivedAt: view.firstReceivedAt,
    reason: view.reason,
    deliveryFailure: view.deliveryFailure,
    messageAttributes,
    attributes: message.Attributes ?? {},
    body: view.body,
  };
};

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

/** ` (interrupted: the <what> is incomplete)` after Ctrl-C, else nothing. */
const interruptedNote = (io: OpsIo, what: string): string =>
  io.signal?.aborted ? ` (interrupted: the ${what} is incomplete)` : '';

/** Warns about messages still held after a peek; returns the command's exit code. */
const finishPeek = (io: OpsIo, peek: PeekResult): number => {
  if (peek.notReleased > 0) {
    writeLine(
      io.stderr,
      `Warning: ${counted(peek.notReleased, 'message')} could not be made visible again; SQS shows them again within ${PEEK_HOLD_SECONDS} s.`,
    );
  }
  return io.signal?.aborted ? INTERRUPTED_EXIT_CODE : 0;
};

export interface ListOptions {
  readonly action: ActionName;
  readonly max: number;
  readonly showBody: boolean;
}

export const runList: OpsCommand<ListOptions> = async (deployment, options, io) => {
  const { deadLetterQueueUrl } = await deployment.queues(options.action);
  const peek = await peekMessages(deployment.sqs(), deadLetterQueueUrl, {
    max: options.max,
    signal: io.signal,
  });
  const shown = peek.messages.length;
  const more =
    shown >= options.max && peek.approximateCount > shown
      ? `; the DLQ holds about ${peek.approximateCount}, use --max to see more`
      : '';
  writeLine(
    io.stdout,
    `${options.action} DLQ: ${counted(shown, 'dead letter')}${more}${interruptedNote(io, 'list')}`,
  );
  peek.messages.forEach((message, index) => {
    for (const line of formatDeadLetter(viewDeadLetter(message), index + 1, options.showBody)) {
      writeLine(io.stdout, line);
    }
  });
  return finishPeek(io, peek);
};

export interface ExportOptions {
  readonly action: ActionName;
  /** A file path, or `-` for stdout. */
  readonly file: string;
  readonly force: boolean;
}

export const runExport: OpsCommand<ExportOptions> = async (deployment, options, io) => {
  const { deadLetterQueueUrl } = await deployment.queues(options.action);
  // Opened first so a file that already exists stops the command before anything is received.
  // 0600: the bodies are personal data.
  const handle =
    options.file === '-'
      ? undefined
      : await open(options.file, options.force ? 'w' : 'wx', 0o600).catch((error: unknown) => {
          const code = (error as NodeJS.ErrnoException).code;
          throw new OpsError(
            code === 'EEXIST'
              ? `${options.file} already exists; pass --force to overwrite it`
              : `Cannot write ${options.file}: ${(error as Error).message}`,
          );
        });
  let written = false;
  try {
    const peek = await peekMessages(deployment.sqs(), deadLetterQueueUrl, { signal: io.signal });
    const text = peek.messages
      .map((message) => `${JSON.stringify(exportRecord(message))}\n`)
      .join('');
    if (handle === undefined) io.stdout.write(text);
    else await handle.writeFile(text, 'utf8');
    written = true;
    writeLine(
      io.stderr,
      `Exported ${counted(peek.messages.length, `${options.action} dead letter`)} to ${options.file === '-' ? 'stdout' : options.file}; they are still in the DLQ${interruptedNote(io, 'export')}.`,
    );
    return finishPeek(io, peek);
  } finally {
    await handle?.close();
    // Leave no empty or partial file behind when the export failed.
    if (handle !== undefined && !written) await rm(options.file, { force: true });
  }
};
