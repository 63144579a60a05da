/**
 * The batch processor's retry policy, through Powertools' `processPartialResponse`: where a
 * record stands in its retries, and that a retryable failure waits its backoff in its own
 * visibility before it is reported failed, while any other failure is only reported.
 */
import { processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Rescheduler } from '../../../lambdas/core/entry/ports';
import { DEFAULT_RETRY_SCHEDULE } from '../../../lambdas/core/entry/retry-schedule';
import {
  type RetryPolicy,
  RetryWindowProcessor,
} from '../../../lambdas/core/entry/retry-window-processor';
import { RetryableFailure } from '../../../lambdas/core/pipeline/outcome';
import { failedIds, sqsEvent, sqsRecord } from '../../../testkit';

const T0 = Date.UTC(2026, 10, 28, 8);
const HOUR_MS = 3_600_000;

class RecordingRescheduler implements Rescheduler {
  readonly calls: { receiptHandle: string; delaySeconds: number }[] = [];
  fail = false;
  async reschedule(receiptHandle: string, delaySeconds: number): Promise<void> {
    if (this.fail) throw new Error('ChangeMessageVisibility failed');
    this.calls.push({ receiptHandle, delaySeconds });
  }
}

const processorWith = (overrides: Partial<RetryPolicy> = {}) => {
  const rescheduler = new RecordingRescheduler();
  const policy: RetryPolicy = {
    maxReceiveCount: 5,
    retrySchedule: DEFAULT_RETRY_SCHEDULE,
    rescheduler,
    queueClock: () => T0,
    random: () => 0,
    logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    ...overrides,
  };
  return { processor: new RetryWindowProcessor(policy, () => T0), rescheduler };
};

const retryable = () =>
  new RetryableFailure({ category: 'retryable', code: 'FAILED', message: 'm', attempts: 1 });

/** One record, on its first receive, whose handler fails retryably. */
const failRetryably = (processor: RetryWindowProcessor) =>
  processPartialResponse(
    sqsEvent(record('retry', 1)),
    async () => {
      throw retryable();
    },
    processor,
    { throwOnFullBatchFailure: false },
  );

const record = (id: string, receiveCount: number, sentAt = T0 - 60_000): SQSRecord =>
  sqsRecord('{}', { messageId: id, receiptHandle: `rh-${id}`, receiveCount, sentAt });

describe('RetryWindowProcessor.receiveOf', () => {
  it.each([
    ['a first receive', record('a', 1), { receiveCount: 1, isLastReceive: false }],
    ['the queue’s last receive', record('b', 5), { receiveCount: 5, isLastReceive: true }],
    [
      'a receive whose next retry would start after the window',
      record('c', 2, T0 - 24 * HOUR_MS),
      { receiveCount: 2, isLastReceive: true, windowSpent: { windowSeconds: 86_400 } },
    ],
  ])('tells %s', (_name, input, expected) => {
    // Prepare
    const { processor } = processorWith();

    // Act
    const receive = processor.receiveOf(input);

    // Assess
    expect(receive).toMatchObject(expected);
    if (!('windowSpent' in expected)) expect(receive.windowSpent).toBeUndefined();
  });
});

describe('RetryWindowProcessor with processPartialResponse', () => {
  it('reschedules a retryable failure by its backoff, and reports every failure', async () => {
    // Prepare
    const { processor, rescheduler } = processorWith();
    const event = sqsEvent(record('ok', 1), record('retry', 2), record('bug', 1));

    // Act
    const response = await processPartialResponse(
      event,
      async (r: SQSRecord) => {
        if (r.messageId === 'retry') throw retryable();
        if (r.messageId === 'bug') throw new TypeError('a bug');
        return 'done';
      },
      processor,
      { throwOnFullBatchFailure: false },
    );

    // Assess: after receive 2 the backoff is 60 s, 30 s at its jitter's lowest (random 0)
    expect(failedIds(response)).toEqual(['bug', 'retry']);
    expect(rescheduler.calls).toEqual([{ receiptHandle: 'rh-retry', delaySeconds: 30 }]);
  });

  it('still reports the record failed when its visibility cannot be changed', async () => {
    // Prepare
    const { processor, rescheduler } = processorWith();
    rescheduler.fail = true;

    // Act
    const response = await failRetryably(processor);

    // Assess
    expect(failedIds(response)).toEqual(['retry']);
  });

  it('reschedules nothing without a schedule: the queue’s visibility timeout decides', async () => {
    // Prepare
    const { processor, rescheduler } = processorWith({ retrySchedule: undefined });

    // Act
    const response = await failRetryably(processor);

    // Assess
    expect(failedIds(response)).toEqual(['retry']);
    expect(rescheduler.calls).toEqual([]);
  });
});
