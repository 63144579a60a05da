import { createHash, randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { sqsRecord } from '../../testkit';
import type { VirtualClock } from './virtual-clock';

/** Where the redrive policy moves a message once its receives are used up (the DLQ). */
export interface RedriveTarget {
  acceptRedrive(message: { readonly body: string; readonly messageId: string }): void;
}

export interface RedrivePolicy {
  /** Receives after which the next receive moves the message to the DLQ (SQS semantics). */
  readonly maxReceiveCount: number;
  readonly deadLetterQueue: RedriveTarget;
}

export interface InMemorySqsQueueOptions {
  readonly name: string;
  /** How long a received message stays invisible unless deleted. */
  readonly visibilityTimeoutSeconds: number;
  readonly redrivePolicy?: RedrivePolicy;
  /** The virtual clock of the local run, or the wall clock (`Date`) for the bench. */
  readonly clock: Pick<VirtualClock, 'now'>;
  /** For the queue ARN in records. @default us-east-1 */
  readonly region?: string;
}

interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly sentAt: number;
  /** Insertion order; receives return older messages first. */
  readonly sequence: number;
  receiveCount: number;
  firstReceivedAt: number | undefined;
  /** Epoch ms from which the message can be received again. */
  visibleAt: number;
  /** Only the latest receipt handle deletes the message. */
  receiptHandle: string | undefined;
}

/** SQS caps one receive at 10 messages. */
export const MAX_MESSAGES_PER_RECEIVE = 10;

/**
 * A standard SQS queue in memory with the semantics the handlers rely on: receives of up to
 * 10 messages, a visibility timeout, `ApproximateReceiveCount`, deletion by receipt handle,
 * and a redrive policy that moves a message to the DLQ on the receive after
 * `maxReceiveCount` (without any reason, as SQS does). Time comes from a `VirtualClock`.
 * Unlike SQS, receives return messages oldest first, so runs are reproducible.
 */
export class InMemorySqsQueue {
  readonly name: string;
  readonly arn: string;
  readonly #visibilityTimeoutMs: number;
  readonly #redrive: RedrivePolicy | undefined;
  readonly #clock: Pick<VirtualClock, 'now'>;
  readonly #messages = new Map<string, StoredMessage>();
  #sequence = 0;

  constructor(options: InMemorySqsQueueOptions) {
    if (!(options.visibilityTimeoutSeconds >= 0)) {
      throw new RangeError('visibilityTimeoutSeconds must be >= 0');
    }
    const maxReceiveCount = options.redrivePolicy?.maxReceiveCount;
    if (
      maxReceiveCount !== undefined &&
      (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1)
    ) {
      throw new RangeError('maxReceiveCount must be a whole number >= 1');
    }
    this.name = options.name;
    this.arn = `arn:aws:sqs:${options.region ?? 'us-east-1'}:000000000000:${options.name}`;
    this.#visibilityTimeoutMs = options.visibilityTimeoutSeconds * 1000;
    this.#redrive = options.redrivePolicy;
    this.#clock = options.clock;
  }

  /** SendMessage: returns the new message id. */
  send(body: string): string {
    const messageId = randomUUID();
    this.#messages.set(messageId, {
      messageId,
      body,
      md5OfBody: createHash('md5').update(body).digest('hex'),
      sentAt: this.#clock.now(),
      sequence: this.#sequence++,
      receiveCount: 0,
      firstReceivedAt: undefined,
      visibleAt: this.#clock.now(),
      receiptHandle: undefined,
    });
    return messageId;
  }

  /**
   * ReceiveMessage: up to `maxMessages` visible messages, as Lambda's SQS records. A visible
   * message whose receives are used up is moved to the DLQ instead of being returned.
   */
  receive(maxMessages: number = MAX_MESSAGES_PER_RECEIVE): SQSRecord[] {
    if (
      !Number.isInteger(maxMessages) ||
      maxMessages < 1 ||
      maxMessages > MAX_MESSAGES_PER_RECEIVE
    ) {
      throw new RangeError(`maxMessages must be 1..${MAX_MESSAGES_PER_RECEIVE}`);
    }
    const now = this.#clock.now();
    const records: SQSRecord[] = [];
    for (const message of this.#inOrder()) {
      if (records.length >= maxMessages) break;
      if (message.visibleAt > now) continue;
      if (this.#redrive && message.receiveCount >= this.#redrive.maxReceiveCount) {
        this.#messages.delete(message.messageId);
        this.#redrive.deadLetterQueue.acceptRedrive({
          body: message.body,
          messageId: message.messageId,
        });
        continue;
      }
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + this.#visibilityTimeoutMs;
      message.receiptHandle = randomUUID();
      records.push(this.#toRecord(message, message.receiptHandle, message.firstReceivedAt));
    }
    return records;
  }

  /** DeleteMessage: true when the handle is the message's latest one and it was deleted. */
  deleteMessage(receiptHandle: string): boolean {
    for (const message of this.#messages.values()) {
      if (message.receiptHandle === receiptHandle) {
        this.#messages.delete(message.messageId);
        return true;
      }
    }
    return false;
  }

  /**
   * ChangeMessageVisibility: the message with this (latest) receipt handle becomes visible
   * again `seconds` from now. Throws, like SQS, for a handle that is not the latest one.
   */
  changeVisibility(receiptHandle: string, seconds: number): void {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 43_200) {
      throw new RangeError('VisibilityTimeout must be 0..43200 seconds');
    }
    for (const message of this.#messages.values()) {
      if (message.receiptHandle === receiptHandle) {
        message.visibleAt = this.#clock.now() + seconds * 1000;
        return;
      }
    }
    throw new Error(`ReceiptHandleIsInvalid: ${receiptHandle}`);
  }

  /** Messages that a receive could return now. */
  get visibleCount(): number {
    const now = this.#clock.now();
    return [...this.#messages.values()].filter((m) => m.visibleAt <= now).length;
  }

  /** Received and neither deleted nor visible again yet. */
  get inFlightCount(): number {
    return this.size - this.visibleCount;
  }

  get size(): number {
    return this.#messages.size;
  }

  /** Earliest time an in-flight message becomes visible again, if any is in flight. */
  nextVisibleAt(): number | undefined {
    const now = this.#clock.now();
    const times = [...this.#messages.values()].map((m) => m.visibleAt).filter((t) => t > now);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  #inOrder(): StoredMessage[] {
    return [...this.#messages.values()].sort((a, b) => a.sequence - b.sequence);
  }

  #toRecord(message: StoredMessage, receiptHandle: string, firstReceivedAt: number): SQSRecord {
    return sqsRecord(message.body, {
      messageId: message.messageId,
      receiptHandle,
      receiveCount: message.receiveCount,
      sentAt: message.sentAt,
      firstReceivedAt,
      senderId: 'LOCALRUN',
      md5OfBody: message.md5OfBody,
      queueArn: this.arn,
    });
  }
}
