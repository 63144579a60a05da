import type { MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';
import { BRAKE_RELEASED_ATTRIBUTE } from '../mass-delete-brake';
import type { ForwardedAttribute, HeldMessage, HeldMessageSink } from '../ports';
import type { AwsClientConfig } from './client-config';
import { loadOnce } from './load-once';
import {
  MAX_ERROR_MESSAGE_LENGTH,
  MAX_REASON_VALUE_LENGTH,
  sqsAttributeValue,
} from './sqs-dead-letter-sink';

/** Attributes the handler adds to a held message: why and since when it waits. */
export const HELD_NOTE_ATTRIBUTES = [
  'heldAt',
  'heldReason',
  'correlationId',
  'sourceMessageId',
] as const;

/** SQS allows this many message attributes per message. */
export const SQS_MAX_MESSAGE_ATTRIBUTES = 10;

/**
 * The producer's attributes as SQS takes them on send: at most 9, so a release can still add
 * its own. Our own markers (a held note, an earlier release) are not the producer's.
 */
export const producerAttributes = (
  attributes: Readonly<Record<string, ForwardedAttribute>> | undefined,
): Record<string, MessageAttributeValue> =>
  Object.fromEntries(
    Object.entries(attributes ?? {})
      .filter(
        ([name]) =>
          name !== BRAKE_RELEASED_ATTRIBUTE &&
          !(HELD_NOTE_ATTRIBUTES as readonly string[]).includes(name),
      )
      .slice(0, SQS_MAX_MESSAGE_ATTRIBUTES - 1)
      .map(([name, value]): [string, MessageAttributeValue] => [
        name,
        value.binaryValue === undefined
          ? { DataType: value.dataType, StringValue: value.stringValue }
          : { DataType: value.dataType, BinaryValue: Buffer.from(value.binaryValue, 'base64') },
      ]),
  );

/** The held message's attributes: the producer's first, then the note as far as room allows. */
export const heldAttributes = (
  message: HeldMessage,
  heldAt: Date,
): Record<string, MessageAttributeValue> => {
  const kept = producerAttributes(message.attributes);
  const string = (value: string, max = MAX_REASON_VALUE_LENGTH): MessageAttributeValue => ({
    DataType: 'String',
    StringValue: sqsAttributeValue(value, max),
  });
  const note: [string, MessageAttributeValue][] = [
    ['heldAt', string(heldAt.toISOString())],
    ['heldReason', string(message.reason, MAX_ERROR_MESSAGE_LENGTH)],
    ['correlationId', string(message.correlationId)],
    ['sourceMessageId', string(message.sourceMessageId)],
  ];
  const room = SQS_MAX_MESSAGE_ATTRIBUTES - Object.keys(kept).length;
  return { ...kept, ...Object.fromEntries(note.slice(0, Math.max(0, room))) };
};

export interface SqsHeldQueueOptions {
  /** URL of the action's held queue (created by the stack for each destructive action). */
  readonly queueUrl: string;
  readonly client?: SQSClient;
  /** Settings of the client built when none is given (the function's region and credentials). */
  readonly clientConfig?: AwsClientConfig;
  readonly now?: () => number;
}

/** Parks a held message in the action's held queue: body unchanged, the note in attributes. */
export class SqsHeldQueue implements HeldMessageSink {
  readonly #queueUrl: string;
  readonly #now: () => number;
  readonly #sdk: () => Promise<{
    readonly client: SQSClient;
    readonly SendMessageCommand: typeof import('@aws-sdk/client-sqs').SendMessageCommand;
  }>;

  constructor(options: SqsHeldQueueOptions) {
    this.#queueUrl = options.queueUrl;
    this.#now = options.now ?? Date.now;
    this.#sdk = loadOnce(async () => {
      const { SQSClient, SendMessageCommand } = await import('@aws-sdk/client-sqs');
      return {
        client: options.client ?? new SQSClient({ ...options.clientConfig }),
        SendMessageCommand,
      };
    });
  }

  async hold(message: HeldMessage): Promise<void> {
    const { client, SendMessageCommand } = await this.#sdk();
    await client.send(
      new SendMessageCommand({
        QueueUrl: this.#queueUrl,
        MessageBody: message.body,
        MessageAttributes: heldAttributes(message, new Date(this.#now())),
      }),
    );
  }
}
