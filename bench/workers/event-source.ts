/**
 * End to end, the consumer side: the bundled handler behind an emulation of Lambda's SQS event
 * source mapping on moto. `pollers` loops (as many batches in flight as Lambda starts with)
 * long-poll ReceiveMessage for up to a batch, gather more for up to the batching window when
 * it is set, invoke the handler with the batch as an SQS event and delete the records it did
 * not report as failed. Stops once `expected` messages are deleted.
 */

import { pathToFileURL } from 'node:url';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { toRecord } from '../../local/backends/aws-emulator';
import { failedIds } from '../../testkit/sqs-events';
import { chunk } from '../batching';
import { benchContext } from '../invocation';
import type { EventSourceJob, EventSourceResult } from '../protocol';
import { handlerOf, readJob, report } from './report';

const job = readJob<EventSourceJob>();
const handler = handlerOf(await import(pathToFileURL(job.bundle).href));
// Region, endpoint and credentials from the environment, as the function's own clients.
const sqs = new SQSClient({});
const stopped = new AbortController();
const LONG_POLL_SECONDS = 20;
const WINDOW_POLL_MS = 50;

let deleted = 0;
const batchSizes: number[] = [];

const receive = async (max: number, waitSeconds: number): Promise<Message[]> => {
  const answer = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: job.queueUrl,
      MaxNumberOfMessages: max,
      WaitTimeSeconds: waitSeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
    { abortSignal: stopped.signal },
  );
  return answer.Messages ?? [];
};

/** One batch: the first receive waits for messages; the window, if any, gathers more. */
const gather = async (): Promise<Message[]> => {
  const batch = await receive(Math.min(10, job.batchSize), LONG_POLL_SECONDS);
  if (batch.length === 0 || job.batchingWindowSeconds === 0) return batch;
  const closes = performance.now() + job.batchingWindowSeconds * 1000;
  while (batch.length < job.batchSize && performance.now() < closes) {
    const more = await receive(Math.min(10, job.batchSize - batch.length), 0);
    if (more.length === 0) await new Promise((resolve) => setTimeout(resolve, WINDOW_POLL_MS));
    batch.push(...more);
  }
  return batch;
};

const poller = async (): Promise<void> => {
  while (!stopped.signal.aborted) {
    let batch: Message[];
    try {
      batch = await gather();
    } catch (error) {
      if (stopped.signal.aborted) return;
      throw error;
    }
    if (batch.length === 0) continue;
    batchSizes.push(batch.length);
    const event = { Records: batch.map((message) => toRecord(message, job.queueArn)) };
    const failed = new Set(failedIds(await handler(event, benchContext(job.lambda))));
    const done = batch.filter((message) => !failed.has(message.MessageId ?? ''));
    for (const group of chunk(done, 10)) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: job.queueUrl,
          Entries: group.map((message, i) => ({
            Id: String(i),
            ReceiptHandle: message.ReceiptHandle ?? '',
          })),
        }),
      );
    }
    deleted += done.length;
    if (deleted >= job.expected) stopped.abort();
  }
};

await Promise.all(Array.from({ length: job.pollers }, poller));
report({ deleted, batchSizes } satisfies EventSourceResult);
