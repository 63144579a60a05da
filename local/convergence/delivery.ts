/**
 * SQS as it really delivers, over one queue per action: every message at least once (some twice,
 * as separate SQS messages), in a shuffled order, in batches of 1–10, all queues polled at once;
 * what a handler reports as failed comes back with its receive count raised, until the last
 * receive (then the handler dead-letters it itself). Nothing here decides an outcome.
 *
 * `in-order` is the reference delivery: each message once, one at a time, in the order given
 * (callers give version order), a failed one received again at once, no faults and no redrive.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { DeadLetterReason } from '../../lambdas/core/entry/ports';
import { failedIds, sqsRecord } from '../../testkit';
import type { FaultSettings, RunningSimulator } from '../simulator';
import type { ModelEvent } from './model';

/** Platform trouble during a shuffled delivery: retries, lost answers and redeliveries happen. */
export const DELIVERY_FAULTS: FaultSettings = {
  serverErrorRate: 0.08,
  throttleRate: 0.04,
  retryAfterSeconds: 0,
  connectionResetRate: 0.02,
  failedStatusRate: 0.04,
  lostResponseRate: 0.05,
};

export type Invoke = (action: string, event: SQSEvent) => Promise<unknown>;

/** `shuffled`: doubled, concurrent, through faults, then a redrive. `in-order`: see above. */
export type DeliveryMode = 'shuffled' | 'in-order';

interface Queued {
  readonly action: string;
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
    /** @default 'shuffled' */
    readonly mode?: DeliveryMode;
  },
): Promise<DeliveryReport> => {
  const { random } = options;
  const inOrder = options.mode === 'in-order';
  const all: Queued[] = [];
  events.forEach((event, i) => {
    const copies = !inOrder && random() < options.duplicateRate ? 2 : 1;
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
  let redeliveries = 0;
  const failedOnLastReceive: string[] = [];
  /** One receive of a batch; returns the messages SQS would deliver again. */
  const receive = async (action: string, batch: readonly Queued[]): Promise<Queued[]> => {
    for (const message of batch) message.receiveCount += 1;
    const failed = new Set(failedIds(await invoke(action, { Records: batch.map(record) })));
    const again: Queued[] = [];
    for (const message of batch) {
      if (!failed.has(message.messageId)) continue;
      if (message.receiveCount >= options.maxReceiveCount) {
        failedOnLastReceive.push(message.messageId);
      } else {
        redeliveries += 1;
        again.push(message);
      }
    }
    return again;
  };

  if (inOrder) {
    for (const message of all) {
      let pending = [message];
      while (pending.length > 0) pending = await receive(message.action, pending);
    }
    return { messages: all.length, redeliveries, failedOnLastReceive };
  }

  for (let i = all.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j] as Queued, all[i] as Queued];
  }
  const queues = new Map<string, Queued[]>();
  for (const message of all)
    queues.set(message.action, [...(queues.get(message.action) ?? []), message]);
  while ([...queues.values()].some((queue) => queue.length > 0)) {
    await Promise.all(
      [...queues].map(async ([action, queue]) => {
        const batch = queue.splice(0, 1 + Math.floor(random() * 10));
        if (batch.length === 0) return;
        queue.push(...(await receive(action, batch)));
      }),
    );
  }
  return { messages: all.length, redeliveries, failedOnLastReceive };
};

export interface DeadLetter {
  readonly body: string;
  readonly reason: DeadLetterReason;
}

export interface PartReport {
  readonly delivered: DeliveryReport;
  readonly redriven: DeliveryReport;
  /** Dead-lettered while the part was delivered; each was redriven once. */
  readonly letters: readonly DeadLetter[];
  /** Dead-lettered again by the redrive. */
  readonly lettersAfterRedrive: readonly DeadLetter[];
}

/**
 * One part of a day as an operator lives it: its messages delivered (with the platform's
 * `faults` on when shuffled), then the faults stop and every dead letter is redriven once, as
 * new messages with the same bodies (not in order). `deadLetters` is the queue the handlers
 * write to.
 */
export const deliverPart = async (
  events: readonly ModelEvent[],
  invoke: Invoke,
  platform: Pick<RunningSimulator, 'setFaults'>,
  deadLetters: { readonly entries: DeadLetter[] },
  options: {
    readonly mode: DeliveryMode;
    readonly faults: FaultSettings;
    readonly random: () => number;
    readonly maxReceiveCount: number;
    /** Names the part's message ids. */
    readonly name: string;
    /** @default 0.3 */
    readonly duplicateRate?: number;
  },
): Promise<PartReport> => {
  const { mode, random, maxReceiveCount } = options;
  platform.setFaults(mode === 'in-order' ? {} : options.faults);
  let delivered: DeliveryReport;
  try {
    delivered = await deliver(events, invoke, {
      random,
      duplicateRate: options.duplicateRate ?? 0.3,
      maxReceiveCount,
      prefix: options.name,
      mode,
    });
  } finally {
    platform.setFaults({});
  }
  const letters = deadLetters.entries.splice(0);
  // A redrive sends old messages after newer ones: no part of a delivery in order.
  const redriven = await deliver(
    mode === 'in-order'
      ? []
      : letters.map((letter) => ({
          action: letter.reason.action,
          message: JSON.parse(letter.body),
        })),
    invoke,
    { random, duplicateRate: 0, maxReceiveCount, prefix: `redrive-${options.name}`, mode },
  );
  return { delivered, redriven, letters, lettersAfterRedrive: deadLetters.entries.splice(0) };
};
