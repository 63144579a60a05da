/**
 * The mass-delete brake end to end against moto: the real delete-user and add-user entry points
 * consume a moto source queue (as the event source mapping would: receive, invoke, delete what
 * did not fail), count in the moto ledger table and park in a moto held queue; the operator
 * commands read and decide through the same queues and table. Every message sent is accounted
 * for at the end: applied, skipped as stale, or in the DLQ with its reason.
 */

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRAKE_RELEASED_ATTRIBUTE } from '../../../lambdas/core/resilience/mass-delete-brake';
import {
  actionOutputKeys,
  EVENT_BUS_OUTPUT_KEY,
  LEDGER_TABLE_OUTPUT_KEY,
} from '../../../lib/stack-outputs';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import {
  countMessages,
  createQueue,
  motoSqsClient,
  receiveAllMessages,
  type TestQueue,
  uniqueName,
} from '../../support/aws-clients';
import { lateBound } from '../../support/late-bound';
import { motoLedgerClient } from '../../support/ledger-table';
import { runOpsCaptured } from '../../support/ops-run';
import { outcomeLines } from '../handlers/support/expectations';
import { harnessPerFile, type LambdaEntry } from '../handlers/support/handler-harness';
import { seedUser } from '../handlers/support/seed-data';
import { tempDir } from './ops-fixture';

const LIMIT = 3;
const harness = harnessPerFile();
const sqs = motoSqsClient();
const dynamoDb = motoLedgerClient();

interface Deployment {
  readonly source: TestQueue;
  readonly addUserSource: TestQueue;
  readonly held: TestQueue;
  readonly deleteUser: LambdaEntry;
  readonly addUser: LambdaEntry;
  /** `--stack … --outputs-file …` */
  readonly args: readonly string[];
}
const deployment = lateBound<Deployment>('the braked delete-user deployment');

beforeAll(async () => {
  const [source, addUserSource, held] = await Promise.all([
    createQueue(sqs, { name: uniqueName('delete-user') }),
    createQueue(sqs, { name: uniqueName('add-user') }),
    createQueue(sqs, { name: uniqueName('delete-user-held') }),
  ]);
  const deleteUser = await harness.load('delete-user', {
    SOURCE_QUEUE_URL: source.queueUrl,
    HELD_QUEUE_URL: held.queueUrl,
    DELETE_BRAKE_LIMIT: String(LIMIT),
    DELETE_BRAKE_WINDOW_SECONDS: '3600',
  });
  const addUser = await harness.load('add-user', { SOURCE_QUEUE_URL: addUserSource.queueUrl });
  const stackName = uniqueName('brake-stack');
  const keys = actionOutputKeys('delete-user');
  const outputsFile = path.join(await tempDir(), 'cdk-outputs.json');
  await writeFile(
    outputsFile,
    JSON.stringify({
      [stackName]: {
        [keys.queueUrl]: source.queueUrl,
        [keys.deadLetterQueueUrl]: harness.deadLetterQueue.queueUrl,
        [keys.heldQueueUrl]: held.queueUrl,
        [LEDGER_TABLE_OUTPUT_KEY]: harness.ledgerTableName,
        [EVENT_BUS_OUTPUT_KEY]: 'unused-bus',
      },
    }),
  );
  deployment.set({
    source,
    addUserSource,
    held,
    deleteUser,
    addUser,
    args: ['--stack', stackName, '--outputs-file', outputsFile],
  });
});

afterAll(() => {
  sqs.destroy();
});

const ops = (...argv: string[]) =>
  runOpsCaptured([...argv, ...deployment.value().args], { clients: { sqs, dynamoDb } });

const at = (minute: number): string => new Date(Date.UTC(2025, 0, 6, 9, minute)).toISOString();

const leaver = (n: number, minute = n) => ({
  correlationId: `leaver-${n}`,
  occurredAt: at(minute),
  loginUserId: `leaver-${n}@example.com`,
});

const send = async (queue: TestQueue, ...messages: unknown[]): Promise<void> => {
  for (const message of messages) {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queue.queueUrl,
        MessageBody: JSON.stringify(message),
        MessageAttributes: { producer: { DataType: 'String', StringValue: 'hr-export-42' } },
      }),
    );
  }
};

/** What the event source mapping does: receive a batch, invoke, delete what did not fail. */
const deliver = async (queue: TestQueue, handler: LambdaEntry): Promise<number> => {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queue.queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  if (Messages.length === 0) return 0;
  const records = Messages.map((m: Message) =>
    sqsRecord(m.Body ?? '', {
      messageId: m.MessageId ?? '',
      receiptHandle: m.ReceiptHandle ?? '',
      receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
      sentAt: Number(m.Attributes?.SentTimestamp),
      queueArn: queue.queueArn,
      messageAttributes: Object.fromEntries(
        Object.entries(m.MessageAttributes ?? {}).map(([name, value]) => [
          name,
          {
            dataType: value.DataType ?? 'String',
            stringValue: value.StringValue,
            stringListValues: [],
            binaryListValues: [],
          },
        ]),
      ),
    }),
  );
  const response = (await handler(sqsEvent(...records), lambdaContext())) as SQSBatchResponse;
  const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
  expect([...failed]).toEqual([]);
  await sqs.send(
    new DeleteMessageBatchCommand({
      QueueUrl: queue.queueUrl,
      Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
    }),
  );
  return Messages.length;
};

const users = () =>
  harness.sim.state
    .listUsers()
    .map((u) => u.loginUserId)
    .sort();

const codeOf = (correlationId: string) => outcomeLines(harness).get(correlationId)?.code;

describe('the mass-delete brake against moto', () => {
  it('trips, holds, shows, releases (a delete older than a re-add is skipped as stale), trips again, discards; nothing lost', async () => {
    // Prepare: eight leavers, and one user whose (older) delete is held before a re-add
    const { source, addUserSource, held, deleteUser, addUser } = deployment.value();
    for (let n = 1; n <= 8; n++) seedUser(harness, `leaver-${n}@example.com`);
    const lateJoiner = { ...leaver(9, 5), correlationId: 'late-delete-9' };

    // Act 1: the first three are applied, then the brake trips and holds the rest
    await send(source, leaver(1), leaver(2), leaver(3));
    await deliver(source, deleteUser);
    await send(source, leaver(4), leaver(5), leaver(6), leaver(7), leaver(8));
    await deliver(source, deleteUser);
    await send(source, lateJoiner);
    await deliver(source, deleteUser);
    await send(addUserSource, {
      correlationId: 'rejoin-9',
      occurredAt: at(30),
      loginUserId: 'leaver-9@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      userTemplateName: 'Agent',
    });
    await deliver(addUserSource, addUser);
    const status = await ops('brake', 'status', 'delete-user');

    // Assess 1
    expect(users()).toEqual([
      'leaver-4@example.com',
      'leaver-5@example.com',
      'leaver-6@example.com',
      'leaver-7@example.com',
      'leaver-8@example.com',
      'leaver-9@example.com',
    ]);
    expect(await countMessages(sqs, held.queueUrl)).toBe(6);
    expect(codeOf('leaver-4')).toBe('HELD_BY_BRAKE');
    expect(codeOf('rejoin-9')).toBe('SUCCESS');
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/delete-user: TRIPPED since \d{4}-/);
    expect(status.stdout).toMatch(
      /limit\s+3 per 60 min \(config\/example\.json says 500 per 60 min/,
    );
    expect(status.stdout).toMatch(/counted in window\s+3\n/);
    expect(status.stdout).toMatch(/held\s+6\n/);
    expect(status.stdout).toContain('brake release delete-user');
    const parked = await receiveAllMessages(sqs, held.queueUrl);
    expect(parked.map((m) => m.MessageAttributes?.producer?.StringValue)).toEqual(
      Array(6).fill('hr-export-42'),
    );
    expect(parked.map((m) => m.MessageAttributes?.heldReason?.StringValue)).toEqual(
      Array(6).fill(expect.stringContaining('brake tripped')),
    );

    // Act 2: the operator lets them through
    const release = await ops('brake', 'release', 'delete-user', '--rate', '50/s');
    const released = await receiveAllMessages(sqs, source.queueUrl);
    while ((await deliver(source, deleteUser)) > 0);
    const after = await ops('brake', 'status', 'delete-user');

    // Assess 2: applied, except the delete older than the re-add; nothing counted or held
    expect(release.code).toBe(0);
    expect(release.stdout).toContain('Release delete-user: moved 6, failed 0.');
    expect(released.map((m) => m.MessageAttributes?.producer?.StringValue)).toEqual(
      Array(6).fill('hr-export-42'),
    );
    expect(released.every((m) => m.MessageAttributes?.[BRAKE_RELEASED_ATTRIBUTE])).toBe(true);
    expect(released.some((m) => m.MessageAttributes?.heldReason)).toBe(false);
    expect(users()).toEqual(['leaver-9@example.com']);
    expect(codeOf('late-delete-9')).toBe('STALE_SKIPPED');
    for (const n of [4, 5, 6, 7, 8]) expect(codeOf(`leaver-${n}`)).toBe('SUCCESS');
    expect(await countMessages(sqs, held.queueUrl)).toBe(0);
    expect(await countMessages(sqs, source.queueUrl)).toBe(0);
    expect(after.stdout).toMatch(/delete-user: armed/);
    expect(after.stdout).toMatch(/counted in window\s+0\n/);
    expect(after.stdout).toMatch(/held\s+0\n/);
    expect(await countMessages(sqs, harness.deadLetterQueue.queueUrl)).toBe(0);

    // Act 3: another burst trips the re-armed brake; the operator discards what it holds
    for (let n = 11; n <= 15; n++) seedUser(harness, `leaver-${n}@example.com`);
    await send(source, leaver(11), leaver(12), leaver(13), leaver(14), leaver(15));

    await deliver(source, deleteUser);
    const discard = await ops('brake', 'discard', 'delete-user');
    const list = await ops('dlq', 'list', 'delete-user');
    const letters = await harness.deadLetters(2);

    // Assess 3: three applied, two in the DLQ with their reason, none left anywhere else
    expect(users()).toHaveLength(3);
    expect(discard.code).toBe(0);
    expect(discard.stdout).toContain('Discard delete-user: moved 2, failed 0.');
    expect(letters).toHaveLength(2);
    for (const letter of letters) {
      expect(letter.attributes).toMatchObject({
        action: 'delete-user',
        errorCategory: 'permanent',
        errorCode: 'DISCARDED_BY_OPERATOR',
        errorMessage: expect.stringMatching(
          /^held by the mass-delete brake at \d{4}-.*discarded by an operator/,
        ),
        correlationId: expect.stringMatching(/^leaver-1[1-5]$/),
      });
      expect(JSON.parse(letter.body)).toMatchObject({
        loginUserId: expect.stringMatching(/^leaver-1[1-5]@/),
      });
    }
    const remaining = users()
      .filter((id) => id !== 'leaver-9@example.com')
      .map((id) => id.replace('@example.com', ''));
    expect(letters.map((l) => l.attributes.correlationId).sort()).toEqual(remaining.sort());
    expect(list.stdout).toContain('DISCARDED_BY_OPERATOR');
    expect(await countMessages(sqs, held.queueUrl)).toBe(0);
    expect(await countMessages(sqs, source.queueUrl)).toBe(0);
    // Nothing lost: each of the 15 messages applied, skipped as stale, or dead-lettered
    const sent = [
      ...[1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15].map((n) => `leaver-${n}`),
      'late-delete-9',
      'rejoin-9',
    ];
    const discarded = new Set(letters.map((l) => l.attributes.correlationId));
    const fates = sent.map((id) => (discarded.has(id) ? 'DISCARDED_BY_OPERATOR' : codeOf(id)));
    expect(fates.filter((code) => code === 'SUCCESS')).toHaveLength(12);
    expect(fates.filter((code) => code === 'STALE_SKIPPED')).toHaveLength(1);
    expect(fates.filter((code) => code === 'DISCARDED_BY_OPERATOR')).toHaveLength(2);
  });
});
