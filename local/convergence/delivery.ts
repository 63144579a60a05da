/**
 * SQS as it really delivers, over one queue per action: every message at least once (some twice,
 * as separate SQS messages), in a shuffled order, in batches of 1–10, all queues polled at once;
 * what a handler reports as failed comes back with its receive count raised, until the last
 * receive (then the handler dead-letters it itself). Nothing here decides an outcome.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { failedIds, sqsRecord } from '../../testkit';
import type { ModelEvent } from './model';

export type Invoke = (action: string, event: SQSEvent) => Promise<unknown>;

interface Queued {
  readonly messageId: string;
  readonly body: string;
  readonly sentTimestamp: number;
  receiveCount: number;
}

export interface DeliveryReport {
  readonly messages: number;
  readonly redeliveries: number;
  /** Still reported as failed on their last receive: SQS would move them without a reason. */
  readonly failedOnLastReceive: readonly string[];
}

const record = (message: Queued): SQSRecord =>
  sqsRecord(message.body, {
    messageId: message.messageId,
    receiptHandle: `handle-${message.messageId}-${message.receiveCount}`,
    receiveCount: message.receiveCount,
    sentAt: message.sentTimestamp,
    queueArn: 'arn:aws:sqs:eu-central-1:123456789012:convergence',
  });

export const deliver = async (
  events: readonly ModelEvent[],
  invoke: Invoke,
  options: {
    readonly random: () => number;
    readonly duplicateRate: number;
    readonly maxReceiveCount: number;
    readonly prefix: string;
  },
): Promise<DeliveryReport> => {
  const { random } = options;
  const all: (Queued & { action: string })[] = [];
  events.forEach((event, i) => {
    const copies = random() < options.duplicateRate ? 2 : 1;
    for (let c = 0; c < copies; c += 1) {
      all.push({
        action: event.action,
        messageId: `${options.prefix}-${i}-${c}`,
        body: JSON.stringify(event.message),
        sentTimestamp: Date.now(),
        receiveCount: 0,
      });
    }
  });
  for (let i = all.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j] as (typeof all)[number], all[i] as (typeof all)[number]];
  }
  const queues = new Map<string, Queued[]>();
  for (const message of all)
    queues.set(message.action, [...(queues.get(message.action) ?? []), message]);

  let redeliveries = 0;
  const failedOnLastReceive: string[] = [];
  while ([...queues.values()].some((queue) => queue.length > 0)) {
    await Promise.all(
      [...queues].map(async ([action, queue]) => {
        const batch = queue.splice(0, 1 + Math.floor(random() * 10));
        if (batch.length === 0) return;
        for (const message of batch) message.receiveCount += 1;
        const failed = new Set(failedIds(await invoke(action, { Records: batch.map(record) })));
        for (const message of batch) {
          if (!failed.has(message.messageId)) continue;
          if (message.receiveCount >= options.maxReceiveCount) {
            failedOnLastReceive.push(message.messageId);
          } else {
            redeliveries += 1;
            queue.push(message);
          }
        }
      }),
    );
  }
  return { messages: all.length, redeliveries, failedOnLastReceive };
};
