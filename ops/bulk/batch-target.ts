/**
 * Where a bulk load's batches go: an SQS queue (SendMessageBatch) or an EventBridge bus
 * (PutEvents), both ten entries a call, both answering per entry. A rejected entry is returned
 * with whether retrying it can help; nothing is dropped.
 */
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** Both APIs take at most ten entries a call. */
export const MAX_BATCH_ENTRIES = 10;
/** Both APIs cap a call's payload at 256 KiB; a margin is left for the envelope. */
export const MAX_BATCH_BYTES = 240 * 1024;

export interface BatchEntry {
  /** Unique in the batch: the message's number in the load. */
  readonly id: number;
  readonly body: string;
}

export interface EntryFailure {
  readonly id: number;
  readonly code: string;
  readonly message: string;
  /** False when the service says the entry itself is wrong: a retry would fail the same way. */
  readonly retryable: boolean;
}

/** Sends one batch; resolves to the entries it did not take. Throws when the call failed. */
export type SendBatch = (entries: readonly BatchEntry[]) => Promise<EntryFailure[]>;

const noAnswer = (id: number): EntryFailure => ({
  id,
  code: 'NoAnswer',
  message: 'the response named this entry neither successful nor failed',
  retryable: true,
});

export const queueBatchSender =
  (sqs: SQSClient, queueUrl: string): SendBatch =>
  async (entries) => {
    const response = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: entries.map((entry) => ({ Id: String(entry.id), MessageBody: entry.body })),
      }),
    );
    const answered = new Set((response.Successful ?? []).map((s) => s.Id));
    const failures = (response.Failed ?? []).map(
      (failed): EntryFailure => ({
        id: Number(failed.Id),
        code: failed.Code ?? 'Unknown',
        message: failed.Message ?? '',
        retryable: failed.SenderFault !== true,
      }),
    );
    for (const failure of failures) answered.add(String(failure.id));
    return [
      ...failures,
      ...entries.filter((entry) => !answered.has(String(entry.id))).map((e) => noAnswer(e.id)),
    ];
  };

/** PutEvents error codes worth retrying (throttling, service-side faults). */
const RETRYABLE_EVENT_ERRORS = new Set([
  'ThrottlingException',
  'InternalFailure',
  'InternalException',
  'ServiceUnavailable',
]);

export const busBatchSender =
  (events: EventBridgeClient, busName: string, source: string, detailType: string): SendBatch =>
  async (entries) => {
    const response = await events.send(
      new PutEventsCommand({
        Entries: entries.map((entry) => ({
          EventBusName: busName,
          Source: source,
          DetailType: detailType,
          Detail: entry.body,
        })),
      }),
    );
    // PutEvents answers 200 even when it rejects entries; its answers are in entry order.
    return entries.flatMap((entry, index): EntryFailure[] => {
      const answer = response.Entries?.[index];
      if (answer?.EventId !== undefined && answer.ErrorCode === undefined) return [];
      if (answer?.ErrorCode === undefined) return [noAnswer(entry.id)];
      return [
        {
          id: entry.id,
          code: answer.ErrorCode,
          message: answer.ErrorMessage ?? '',
          retryable: RETRYABLE_EVENT_ERRORS.has(answer.ErrorCode),
        },
      ];
    });
  };

/** Entries in order, cut into batches of at most ten entries and MAX_BATCH_BYTES. */
export const intoBatches = (entries: readonly BatchEntry[]): BatchEntry[][] => {
  const batches: BatchEntry[][] = [];
  let current: BatchEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(entry.body);
    if (
      current.length === MAX_BATCH_ENTRIES ||
      (current.length > 0 && bytes + size > MAX_BATCH_BYTES)
    ) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
};
