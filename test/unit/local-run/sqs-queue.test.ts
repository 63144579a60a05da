import { describe, expect, it } from 'vitest';
import { InMemorySqsQueue, type RedriveTarget } from '../../../local/in-memory/sqs-queue';
import { VirtualClock } from '../../../local/in-memory/virtual-clock';

const T0 = 1_800_000_000_000;

/** A queue with a 180 s visibility timeout whose DLQ records what the redrive policy moves. */
const queueWithDlq = (maxReceiveCount = 5) => {
  const clock = new VirtualClock(T0);
  const moved: { body: string; messageId: string }[] = [];
  const dlq: RedriveTarget = { acceptRedrive: (message) => moved.push(message) };
  const queue = new InMemorySqsQueue({
    name: 'add-user',
    visibilityTimeoutSeconds: 180,
    redrivePolicy: { maxReceiveCount, deadLetterQueue: dlq },
    clock,
  });
  return { clock, queue, moved };
};

describe('InMemorySqsQueue', () => {
  it('returns at most the requested number of messages, oldest first, as Lambda SQS records', () => {
    // Prepare
    const { queue } = queueWithDlq();
    const ids = Array.from({ length: 12 }, (_, i) => queue.send(`{"n":${i}}`));

    // Act
    const first = queue.receive(10);
    const second = queue.receive(10);

    // Assess
    expect(first.map((r) => r.messageId)).toEqual(ids.slice(0, 10));
    expect(second.map((r) => r.messageId)).toEqual(ids.slice(10));
    expect(first[0]).toMatchObject({
      body: '{"n":0}',
      eventSource: 'aws:sqs',
      eventSourceARN: expect.stringContaining(':add-user'),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(T0) },
    });
  });

  it('refuses more than 10 messages per receive, as SQS does', () => {
    // Prepare
    const { queue } = queueWithDlq();

    // Act
    const receive = () => queue.receive(11);

    // Assess
    expect(receive).toThrow(RangeError);
  });

  it('hides a received message until its visibility timeout is over', () => {
    // Prepare
    const { queue, clock } = queueWithDlq();
    queue.send('a');
    queue.receive();

    // Act
    clock.advanceBy(179_999);
    const beforeTimeout = queue.receive();
    clock.advanceBy(1);
    const afterTimeout = queue.receive();

    // Assess
    expect(beforeTimeout).toEqual([]);
    expect(afterTimeout.map((r) => r.body)).toEqual(['a']);
    expect(afterTimeout[0]?.attributes.ApproximateReceiveCount).toBe('2');
    expect(afterTimeout[0]?.attributes.ApproximateFirstReceiveTimestamp).toBe(String(T0));
  });

  it('keeps only the messages of a batch that were not deleted (partial batch failure)', () => {
    // Prepare
    const { queue, clock } = queueWithDlq();
    for (const body of ['ok-1', 'fails', 'ok-2']) queue.send(body);
    const batch = queue.receive();

    // Act
    for (const record of batch.filter((r) => r.body !== 'fails')) {
      queue.deleteMessage(record.receiptHandle);
    }
    const counts = { visible: queue.visibleCount, inFlight: queue.inFlightCount };
    const nextVisibleAt = queue.nextVisibleAt();
    clock.advanceTo(nextVisibleAt ?? 0);
    const redelivered = queue.receive();

    // Assess
    expect(counts).toEqual({ visible: 0, inFlight: 1 });
    expect(nextVisibleAt).toBe(T0 + 180_000);
    expect(redelivered.map((r) => r.body)).toEqual(['fails']);
    expect(queue.size).toBe(1);
  });

  it('deletes only with the latest receipt handle', () => {
    // Prepare
    const { queue, clock } = queueWithDlq();
    queue.send('a');
    const [first] = queue.receive();
    clock.advanceBy(180_000);
    const [second] = queue.receive();

    // Act
    const withStale = queue.deleteMessage(first?.receiptHandle ?? '');
    const withLatest = queue.deleteMessage(second?.receiptHandle ?? '');

    // Assess
    expect(withStale).toBe(false);
    expect(withLatest).toBe(true);
    expect(queue.size).toBe(0);
  });

  it('moves a message to the DLQ on the receive after maxReceiveCount, without a reason', () => {
    // Prepare
    const { queue, clock, moved } = queueWithDlq(3);
    const messageId = queue.send('poison');
    const receiveCounts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [record] = queue.receive();
      receiveCounts.push(record?.attributes.ApproximateReceiveCount ?? '-');
      clock.advanceBy(180_000);
    }

    // Act
    const fourth = queue.receive();

    // Assess
    expect(receiveCounts).toEqual(['1', '2', '3']);
    expect(fourth).toEqual([]);
    expect(moved).toEqual([{ body: 'poison', messageId }]);
    expect(queue.size).toBe(0);
  });

  it('still returns the other visible messages of a receive that moves one to the DLQ', () => {
    // Prepare
    const { queue, clock, moved } = queueWithDlq(1);
    queue.send('poison');
    queue.receive();
    clock.advanceBy(180_000);
    queue.send('fresh');

    // Act
    const records = queue.receive();

    // Assess
    expect(records.map((r) => r.body)).toEqual(['fresh']);
    expect(moved.map((m) => m.body)).toEqual(['poison']);
  });
});
