import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { ForwardedAttribute, HeldMessage, HeldMessageSink } from '../entry/ports';
import { BRAKE_RELEASED_ATTRIBUTE } from '../resilience/mass-delete-brake';
import {
  MAX_ERROR_MESSAGE_LENGTH,
  MAX_REASON_VALUE_LENGTH,
  sqsAttributeValue,
} from './sqs-dead-letter-sink';
import { SqsQueue, type SqsQueueOptions } from './sqs-queue';

/** Attributes the handler adds to a held message: why and since when it waits. */
export const HELD_NOTE_ATTRIBUTES = [
  'heldAt',
  'heldReason',
  'correlationId',
  'sourceMessageId',
] as const;

/** Not one of our own markers (a held note, an earlier release): the producer's attribute. */
export const isProducerAttribute = (name: string): boolean =>
  name !== BRAKE_RELEASED_ATTRIBUTE && !(HELD_NOTE_ATTRIBUTES as readonly string[]).includes(name);

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
      .filter(([name]) => isProducerAttribute(name))
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

export interface SqsHeldQueueOptions extends SqsQueueOptions {
  /** The clock of the `heldAt` note. @default Date.now */
  readonly now?: () => number;
}

/** Parks a held message in the action's held queue: body unchanged, the note in attributes. */
export class SqsHeldQueue implements HeldMessageSink {
  readonly #queue: SqsQueue;
  readonly #now: () => number;

  constructor(options: SqsHeldQueueOptions) {
    this.#queue = new SqsQueue(options);
    this.#now = options.now ?? Date.now;
  }

  hold(message: HeldMessage): Promise<void> {
    return this.#queue.send(message.body, heldAttributes(message, new Date(this.#now())));
  }
}
