import type { Rescheduler } from '../entry/ports';
import { SqsQueue, type SqsQueueOptions } from './sqs-queue';

/**
 * Reschedules a failed message by setting its visibility timeout: the record is then reported
 * as failed and SQS hands it out again after that delay, not after the queue's fixed timeout.
 * The queue is the action's source queue (the one the function consumes).
 */
export class SqsVisibilityRescheduler implements Rescheduler {
  readonly #queue: SqsQueue;

  constructor(options: SqsQueueOptions) {
    this.#queue = new SqsQueue(options);
  }

  reschedule(receiptHandle: string, delaySeconds: number): Promise<void> {
    return this.#queue.changeVisibility(receiptHandle, delaySeconds);
  }
}
