/**
 * The deployed wiring of outage survival, end to end: the add-user entry point with the
 * stack's SOURCE_QUEUE_URL and BREAKER_TABLE_NAME, real messages received from a moto queue
 * (real receipt handles, real ChangeMessageVisibility), the breaker's state in the moto ledger
 * table, and the simulator over a real socket.
 */
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { createQueue, motoSqsClient, type TestQueue } from '../../support/aws-clients';
import { lateBound } from '../../support/late-bound';
import { motoDynamoDbClient } from '../../support/ledger-table';
import { harnessPerFile, type LambdaEntry } from './support/handler-harness';
import { failedIds } from './support/lambda-events';

const harness = harnessPerFile();
const sqs = motoSqsClient();
const dynamodb = motoDynamoDbClient();
const queue = lateBound<TestQueue>('the source queue');
const handler = lateBound<LambdaEntry>('the add-user entry point with outage survival');

beforeAll(async () => {
  queue.set(await createQueue(sqs));
  handler.set(
    await harness.load('add-user', {
      SOURCE_QUEUE_URL: queue.value().queueUrl,
      BREAKER_TABLE_NAME: harness.ledgerTableName,
    }),
  );
});

afterAll(() => {
  sqs.destroy();
  dynamodb.destroy();
});

const joiner = (n: number) => ({
  correlationId: `outage-joiner-${n}`,
  loginUserId: `outage-joiner-${n}@example.com`,
  firstName: 'Out',
  lastName: `Age${n}`,
  userTemplateName: 'Agent',
});

/** Sends the messages to the moto queue and receives them: records with real receipt handles. */
const receiveSent = async (...messages: unknown[]) => {
  const { queueUrl, queueArn } = queue.value();
  for (const message of messages) {
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }),
    );
  }
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return Messages.map((m) =>
    sqsRecord(m.Body ?? '', {
      messageId: m.MessageId ?? '',
      receiptHandle: m.ReceiptHandle ?? '',
      receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
      sentAt: Number(m.Attributes?.SentTimestamp),
      queueArn,
    }),
  );
};

const invisibleCount = async (): Promise<number> => {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queue.value().queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  expect(Attributes.ApproximateNumberOfMessages).toBe('0');
  return Number(Attributes.ApproximateNumberOfMessagesNotVisible);
};

const logged = (message: string) =>
  harness.output.jsonLines().filter((line) => line.message === message);

describe('add-user through a platform outage (moto queue and table)', () => {
  it('reschedules failed messages in their own visibility, opens the shared breaker, then holds messages without a request', async () => {
    // Prepare: the provisioning service answers 503 to everything.
    harness.sim.setFaults({ serverErrorRate: 1 });
    const first = await receiveSent(joiner(1), joiner(2));

    // Act: two messages × three in-process attempts open the breaker.
    const failedFirst = failedIds(await handler.standIn(sqsEvent(...first), lambdaContext()));
    const requestsWhileOpening = harness.sim.stats.snapshot().requests;
    const second = await receiveSent(joiner(3));
    const failedSecond = failedIds(await handler.standIn(sqsEvent(...second), lambdaContext()));

    // Assess: every failed record is invisible for its backoff (not the queue's timeout).
    expect(failedFirst.sort()).toEqual(first.map((r) => r.messageId).sort());
    expect(failedSecond).toEqual(second.map((r) => r.messageId));
    expect(await invisibleCount()).toBe(3);
    const delays = logged('message rescheduled').map((line) => Number(line.delaySeconds));
    expect(delays).toHaveLength(3);
    // The first two: the first backoff (15–30 s); the held one: at least the breaker's cool-down left.
    expect(delays.slice(0, 2).every((d) => d >= 15 && d <= 30)).toBe(true);
    expect(delays[2]).toBeGreaterThanOrEqual(15);
    // The held message cost the platform nothing.
    expect(harness.sim.stats.snapshot().requests).toBe(requestsWhileOpening);
    expect(logged('circuit breaker open: platform service unavailable')).toHaveLength(1);
    const held = logged('retryable failure, message will be redelivered').at(-1);
    expect(held).toMatchObject({ code: 'PLATFORM_UNAVAILABLE', attempts: 0 });
    // The breaker's state is shared through the ledger table.
    const emf = harness.output
      .jsonLines()
      .filter((line) => line.PlatformUnavailable !== undefined)
      .map((line) => [line.PlatformService, line.PlatformUnavailable]);
    expect(emf).toEqual([
      ['provisioning', 1],
      ['provisioning', 1],
    ]);
  });
});
