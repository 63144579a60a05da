import { BatchProcessor, EventType } from '@aws-lambda-powertools/batch';
import type { FailureResponse, SuccessResponse } from '@aws-lambda-powertools/batch/types';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSRecord } from 'aws-lambda';
import { RetryableFailure } from '../pipeline/outcome';
import type { Rescheduler } from './ports';
import { nextDelaySeconds, type RetrySchedule, windowSpent } from './retry-schedule';

/** How failed records come back: the queue's redrive count, the retry window, the backoff. */
export interface RetryPolicy {
  /** Receives after which SQS moves a message to the DLQ (the queue's redrive policy). */
  readonly maxReceiveCount: number;
  /**
   * Retry window and backoff of SQS messages. With `rescheduler`, a retryable failure waits its
   * backoff in the message's visibility and is dead-lettered once the window is spent.
   * @default - failed records come back after the queue's visibility timeout
   */
  readonly retrySchedule?: RetrySchedule;
  /** Sets a failed message's visibility (`ChangeMessageVisibility`). @default none */
  readonly rescheduler?: Rescheduler;
  /** The clock of the queue's timestamps (`SentTimestamp`), for the retry window. @default now */
  readonly queueClock?: () => number;
  /** Jitter of the backoff. @default Math.random */
  readonly random?: () => number;
  readonly logger: Logger;
}

/** Where a record stands in its retries, for the pipeline to settle it. */
export interface ReceiveOf {
  readonly receiveCount: number;
  /** No redelivery follows: the queue's last receive, or the retry window is spent. */
  readonly isLastReceive: boolean;
  /** Set when the next retry of this record would start after its retry window. */
  readonly windowSpent?: { readonly triedForMs: number; readonly windowSeconds: number };
}

const receiveCountOf = (record: SQSRecord): number =>
  Number(record.attributes.ApproximateReceiveCount ?? '1') || 1;

/**
 * Powertools' SQS batch processor with this project's retry policy: it tells the record handler
 * where each record stands in its retries (`receiveOf`), and a record that fails retryably
 * (`RetryableFailure`) waits its backoff in its own visibility before it is reported failed.
 */
export class RetryWindowProcessor extends BatchProcessor {
  readonly #policy: RetryPolicy;
  readonly #now: () => number;
  readonly #random: () => number;

  constructor(policy: RetryPolicy, now: () => number) {
    super(EventType.SQS);
    this.#policy = policy;
    this.#now = policy.queueClock ?? now;
    this.#random = policy.random ?? Math.random;
  }

  receiveOf(record: SQSRecord): ReceiveOf {
    const receiveCount = receiveCountOf(record);
    const spent = this.#windowSpent(record, receiveCount);
    return {
      receiveCount,
      isLastReceive: receiveCount >= this.#policy.maxReceiveCount || spent !== undefined,
      ...(spent === undefined ? {} : { windowSpent: spent }),
    };
  }

  /** As Powertools' own, and a retryable failure is rescheduled before it is reported. */
  override async processRecord(record: SQSRecord): Promise<SuccessResponse | FailureResponse> {
    try {
      return this.successHandler(record, await this.handler(record, this.options?.context));
    } catch (error) {
      if (error instanceof RetryableFailure) await this.#reschedule(record, error);
      return this.failureHandler(record, error as Error);
    }
  }

  #windowSpent(record: SQSRecord, receiveCount: number): ReceiveOf['windowSpent'] {
    const schedule = this.#policy.retrySchedule;
    const sentAt = Number(record.attributes.SentTimestamp);
    if (schedule === undefined || !Number.isFinite(sentAt)) return undefined;
    const at = this.#now();
    return windowSpent(schedule, receiveCount, sentAt, at)
      ? { triedForMs: at - sentAt, windowSeconds: schedule.windowSeconds }
      : undefined;
  }

  /** Keeps a failed record invisible for its backoff (at least what the platform asked). */
  async #reschedule(record: SQSRecord, failure: RetryableFailure): Promise<void> {
    const { retrySchedule: schedule, rescheduler, logger } = this.#policy;
    if (schedule === undefined || rescheduler === undefined) return;
    const receiveCount = receiveCountOf(record);
    const delaySeconds = nextDelaySeconds(
      schedule,
      receiveCount,
      failure.outcome.retryAfterMs,
      this.#random,
    );
    try {
      await rescheduler.reschedule(record.receiptHandle, delaySeconds);
      logger.debug('message rescheduled', {
        messageId: record.messageId,
        receiveCount,
        delaySeconds,
      });
    } catch (error) {
      // Still failed, so still redelivered: after the queue's visibility timeout instead.
      logger.warn('message not rescheduled; it returns after the queue visibility timeout', {
        messageId: record.messageId,
        error: error instanceof Error ? error.name : typeof error,
      });
    }
  }
}
