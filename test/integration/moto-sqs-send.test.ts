/**
 * The tests' moto sends SQS messages through its launcher's copy of moto's send
 * (local/aws-emulator/atomic_moto_server.py): the same send, except that it no longer scans
 * every message the queue holds to learn whether the queue deduplicates by content. What that
 * setting decides must still hold, and a send must cost the same into a deep queue.
 */
import {
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { createQueue, motoSqsClient, receiveAllMessages, uniqueName } from '../support/aws-clients';

const sqs = motoSqsClient();

const fifoQueue = (contentBasedDeduplication: boolean) =>
  createQueue(sqs, {
    name: `${uniqueName('send')}.fifo`,
    attributes: {
      FifoQueue: 'true',
      ContentBasedDeduplication: String(contentBasedDeduplication),
    },
  });

const bodies = async (queueUrl: string, atLeast: number): Promise<string[]> =>
  (await receiveAllMessages(sqs, queueUrl, { atLeast, timeoutMs: 2_000 }))
    .map((m) => m.Body ?? '')
    .sort();

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

describe('moto SendMessage as the tests start it', () => {
  it('deduplicates by content on a FIFO queue that asks for it, one by one and in a batch', async () => {
    // Prepare
    const { queueUrl } = await fifoQueue(true);
    const send = (body: string) =>
      sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageGroupId: 'g' }),
      );

    // Act
    await send('same');
    await send('same');
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'a', MessageBody: 'same', MessageGroupId: 'g' },
          { Id: 'b', MessageBody: 'other', MessageGroupId: 'g' },
          // An explicit id wins over the content's.
          { Id: 'c', MessageBody: 'other', MessageGroupId: 'g', MessageDeduplicationId: 'c' },
        ],
      }),
    );

    // Assess
    expect(await bodies(queueUrl, 3)).toEqual(['other', 'other', 'same']);
  });

  it('still wants a deduplication id on a FIFO queue without content deduplication', async () => {
    // Prepare
    const { queueUrl } = await fifoQueue(false);
    const send = (deduplicationId?: string) =>
      sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: 'same',
          MessageGroupId: 'g',
          MessageDeduplicationId: deduplicationId,
        }),
      );

    // Act
    const refused = send().then(
      () => undefined,
      (error: Error) => error.name,
    );
    await send('1');
    await send('2');

    // Assess
    expect(await refused).toBe('InvalidParameterValue');
    expect(await bodies(queueUrl, 2)).toEqual(['same', 'same']);
  });

  it('keeps every message on a standard queue and still counts them, delayed ones apart', async () => {
    // Prepare
    const { queueUrl } = await createQueue(sqs);

    // Act
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'same' }));
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'same' }));
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'a', MessageBody: 'same' },
          { Id: 'b', MessageBody: 'later', DelaySeconds: 600 },
        ],
      }),
    );
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
    );

    // Assess
    expect(Attributes.ApproximateNumberOfMessages).toBe('3');
    expect(Attributes.ApproximateNumberOfMessagesDelayed).toBe('1');
    expect(Attributes.ContentBasedDeduplication).toBeUndefined();
    expect(await bodies(queueUrl, 3)).toEqual(['same', 'same', 'same']);
  });

  it('sends into a queue holding 2 000 messages as fast as into an empty one', async () => {
    // Prepare: moto alone scans all held messages per send, ~14 µs each: ~28 ms a send here.
    const [shallow, deep] = await Promise.all([createQueue(sqs), createQueue(sqs)]);
    for (let batch = 0; batch < 200; batch += 1) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: deep.queueUrl,
          Entries: Array.from({ length: 10 }, (_, n) => ({ Id: `m${n}`, MessageBody: 'held' })),
        }),
      );
    }
    const timed = async (queueUrl: string): Promise<number> => {
      const started = performance.now();
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'one more' }));
      return performance.now() - started;
    };

    // Act: alternating, so a busy moment of the shared server falls on both alike.
    const times = { shallow: [] as number[], deep: [] as number[] };
    for (let round = 0; round < 40; round += 1) {
      times.shallow.push(await timed(shallow.queueUrl));
      times.deep.push(await timed(deep.queueUrl));
    }

    // Assess
    expect(median(times.deep)).toBeLessThan(3 * median(times.shallow) + 2);
  });
});
