import type { DeadLetterReason, DeadLetterSink } from '../../lambdas/core/entry/ports';
import { SyncError } from '../../lambdas/core/errors';
import { PlannedFailures } from './planned-failures';

/** One message in a dead-letter queue, as an operator would find it there. */
export interface DeadLetter {
  readonly body: string;
  /**
   * The reason attributes the handler attached. Absent when the queue's redrive policy moved
   * the message (SQS attaches no reason), exactly as on AWS.
   */
  readonly reason?: DeadLetterReason;
  /** `handler`: sent by the handler with a reason; `redrive`: moved by the redrive policy. */
  readonly movedBy: 'handler' | 'redrive';
  /** The source queue's message id (SQS keeps it when the redrive policy moves a message). */
  readonly sourceMessageId?: string;
}

/** Thrown by `send` while told to fail; SQS would report it as a failed SendMessage. */
export class DeadLetterSendError extends SyncError<'DEAD_LETTER_SEND_FAILED'> {
  override readonly name = 'DeadLetterSendError';
  readonly code = 'DEAD_LETTER_SEND_FAILED';
  readonly category = 'retryable';
}

/**
 * An action's dead-letter queue in memory. The handler sends to it through the
 * `DeadLetterSink` port; the local SQS queue's redrive policy moves messages into it with
 * `acceptRedrive`. It can be told to fail sends, to show that a failed dead-letter send is
 * redelivered rather than lost.
 */
export class InMemoryDeadLetterQueue implements DeadLetterSink {
  readonly #letters: DeadLetter[] = [];
  readonly #failures = new PlannedFailures('failNextSends');
  #failedSends = 0;

  constructor(readonly name: string) {}

  /** Everything in the queue, oldest first. */
  get letters(): readonly DeadLetter[] {
    return [...this.#letters];
  }

  /** Sends that failed on purpose so far. */
  get failedSends(): number {
    return this.#failedSends;
  }

  /** The next `count` sends throw `DeadLetterSendError` (and store nothing). */
  failNextSends(count: number): void {
    this.#failures.set(count);
  }

  async send(body: string, reason: DeadLetterReason): Promise<void> {
    if (this.#failures.take()) {
      this.#failedSends += 1;
      throw new DeadLetterSendError(`SendMessage to ${this.name} failed (simulated)`);
    }
    this.#letters.push({
      body,
      reason: { ...reason },
      movedBy: 'handler',
      sourceMessageId: reason.sourceMessageId,
    });
  }

  /** The redrive policy of the source queue moves a message here, without any reason. */
  acceptRedrive(message: { readonly body: string; readonly messageId: string }): void {
    this.#letters.push({
      body: message.body,
      movedBy: 'redrive',
      sourceMessageId: message.messageId,
    });
  }
}
