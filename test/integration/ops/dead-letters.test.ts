/**
 * `ops dlq list | export | redrive` end to end against moto. Dead letters are written by the
 * handler's own `SqsDeadLetterSink`; what the queues hold afterwards is the assertion.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { isDeadLetterAttribute } from '../../../ops/dead-letters';
import {
  countMessages,
  motoSqsClient,
  receiveAllMessages,
  useMotoEnvironment,
} from '../../support/aws-clients';
import {
  bodiesOf,
  createActionStack,
  seedDeadLetters,
  seedEventBridgeDeadLetter,
  tempDir,
} from './ops-fixture';

const sqs = motoSqsClient();

/** Bodies with personal data, as producers send them. */
const bodies = (count: number, tag = 'p'): string[] =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      correlationId: `${tag}-${i}`,
      firstName: `Grace${i}`,
      lastName: 'Hopper',
      userTemplateName: 'agent',
    }),
  );

useMotoEnvironment();

describe('ops dlq list', () => {
  it('shows each dead letter with its reasons and leaves every one in the DLQ', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    await seedDeadLetters(sqs, stack, bodies(3));
    const dlq = stack.queues.deadLetterQueue.queueUrl;
    const before = await countMessages(sqs, dlq);

    // Act
    const run = await stack.ops(['dlq', 'list', 'add-user']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('add-user DLQ: 3 dead letters');
    for (const i of [0, 1, 2]) {
      expect(run.stdout).toContain(`loginUserId: is required (case ${i})`);
      expect(run.stdout).toContain(`source-${i}`);
      expect(run.stdout).toContain(`corr-${i}`);
    }
    expect(run.stdout).toMatch(/errorCategory\s+permanent/);
    expect(run.stdout).toMatch(/first received \d{4}-\d\d-\d\dT/);
    // Redacted by default: the shape and the correlation id, not the names.
    expect(run.stdout).not.toContain('Grace');
    expect(run.stdout).toContain('"firstName":"***"');
    expect(before).toBe(3);
    expect(await countMessages(sqs, dlq)).toBe(before);
    // Visible again at once, not just still in the queue.
    expect(await receiveAllMessages(sqs, dlq)).toHaveLength(3);
  });

  it('prints whole bodies with --show-body and stops at --max', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    await seedDeadLetters(sqs, stack, bodies(3));

    // Act
    const run = await stack.ops(['dlq', 'list', 'add-user', '--show-body', '--max', '2']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('add-user DLQ: 2 dead letters; the DLQ holds about 3');
    expect(run.stdout.match(/"firstName":"Grace\d"/g)).toHaveLength(2);
    expect(await countMessages(sqs, stack.queues.deadLetterQueue.queueUrl)).toBe(3);
  });

  it('says when SQS moved a message after maxReceiveCount, which carries no reason', async () => {
    // Prepare: one receive without delete uses up maxReceiveCount 1.
    const stack = await createActionStack(sqs, 'delete-user', { maxReceiveCount: 1 });
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.queues.queueUrl,
        MessageBody: '{"loginUserId":"x"}',
      }),
    );
    await receiveAllMessages(sqs, stack.queues.queueUrl, { atLeast: 1 });
    await receiveAllMessages(sqs, stack.queues.queueUrl);

    // Act
    const run = await stack.ops(['dlq', 'list', 'delete-user']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('delete-user DLQ: 1 dead letter\n');
    expect(run.stdout).toContain('no reason attributes: SQS moved it here after maxReceiveCount');
  });

  it('shows why EventBridge could not deliver an event', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    await seedEventBridgeDeadLetter(sqs, stack, { loginUserId: 'ada@example.com' });

    // Act
    const run = await stack.ops(['dlq', 'list', 'add-user']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('EventBridge could not deliver this event to the source queue');
    expect(run.stdout).toMatch(/ERROR_CODE\s+SDK_CLIENT_ERROR/);
    expect(run.stdout).toMatch(/RULE_ARN\s+arn:aws:events:/);
    expect(run.stdout).toContain('"detail-type":"add-user"');
    expect(run.stdout).not.toContain('ada@example.com');
  });
});

describe('ops dlq export', () => {
  it('writes every dead letter as a JSON line and leaves them all in the DLQ', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    const seeded = bodies(12);
    await seedDeadLetters(sqs, stack, seeded);
    const file = path.join(await tempDir(), 'dead-letters.jsonl');

    // Act
    const run = await stack.ops(['dlq', 'export', 'add-user', file]);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Exported 12 add-user dead letters');
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const records = lines.map((line) => JSON.parse(line));
    expect(records.map((r) => r.body).sort()).toEqual([...seeded].sort());
    const first = records.find((r) => r.reason.sourceMessageId === 'source-0');
    expect(first).toMatchObject({
      messageId: expect.any(String),
      sentAt: expect.stringMatching(/^\d{4}-/),
      firstReceivedAt: expect.stringMatching(/^\d{4}-/),
      reason: {
        action: 'add-user',
        errorCategory: 'permanent',
        errorCode: 'VALIDATION',
        errorMessage: 'loginUserId: is required (case 0)',
        correlationId: 'corr-0',
      },
      messageAttributes: { errorCode: { DataType: 'String', StringValue: 'VALIDATION' } },
      attributes: { SentTimestamp: expect.any(String) },
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await countMessages(sqs, stack.queues.deadLetterQueue.queueUrl)).toBe(12);
  });

  it('refuses to overwrite an existing file without --force', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    await seedDeadLetters(sqs, stack, bodies(1));
    const file = path.join(await tempDir(), 'existing.jsonl');
    await writeFile(file, 'keep me\n');

    // Act
    const refused = await stack.ops(['dlq', 'export', 'add-user', file]);
    const forced = await stack.ops(['dlq', 'export', 'add-user', file, '--force']);

    // Assess
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already exists; pass --force');
    expect(forced.code).toBe(0);
    expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('ops dlq redrive', () => {
  it('moves every dead letter back, bodies intact and reason attributes gone (also EventBridge’s)', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    const seeded = bodies(13);
    await seedDeadLetters(sqs, stack, seeded);
    // A producer's own attribute survives the redrive.
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.queues.deadLetterQueue.queueUrl,
        MessageBody: '{"correlationId":"own"}',
        MessageAttributes: { tenant: { DataType: 'String', StringValue: 'north' } },
      }),
    );

    const event = await seedEventBridgeDeadLetter(sqs, stack, { loginUserId: 'x@example.com' });

    // Act
    const run = await stack.ops(['dlq', 'redrive', 'add-user']);

    // Assess
    expect(run.code).toBe(0);
    // moto has no StartMessageMoveTask: the command says so and moves message by message.
    expect(run.stderr).toContain('StartMessageMoveTask is not available');
    expect(run.stdout).toContain('moved 15, failed 0');
    expect(await countMessages(sqs, stack.queues.deadLetterQueue.queueUrl)).toBe(0);
    const moved = await receiveAllMessages(sqs, stack.queues.queueUrl, { atLeast: 15 });
    expect(bodiesOf(moved)).toEqual([...seeded, '{"correlationId":"own"}', event].sort());
    for (const message of moved) {
      const names = Object.keys(message.MessageAttributes ?? {});
      expect(names.filter(isDeadLetterAttribute)).toEqual([]);
    }
    const own = moved.find((m) => m.Body === '{"correlationId":"own"}');
    expect(own?.MessageAttributes).toEqual({
      tenant: { DataType: 'String', StringValue: 'north' },
    });
  });

  it('moves only --max messages and leaves the rest in the DLQ', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    await seedDeadLetters(sqs, stack, bodies(5));

    // Act
    const run = await stack.ops(['dlq', 'redrive', 'add-user', '--max', '2']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('moved 2, failed 0');
    expect(await countMessages(sqs, stack.queues.queueUrl)).toBe(2);
    expect(await countMessages(sqs, stack.queues.deadLetterQueue.queueUrl)).toBe(3);
    // The ones left behind are visible at once, not held.
    expect(await receiveAllMessages(sqs, stack.queues.deadLetterQueue.queueUrl)).toHaveLength(3);
  });

  it('loses none when a send fails mid-way: the failed one stays in the DLQ with its reasons', async () => {
    // Prepare: a client whose 3rd SendMessage fails as SQS would on an internal error.
    const stack = await createActionStack(sqs, 'add-user');
    const seeded = bodies(6);
    await seedDeadLetters(sqs, stack, seeded);
    const failing = motoSqsClient();
    let sends = 0;
    failing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'SendMessageCommand') {
          sends += 1;
          if (sends === 3) {
            throw Object.assign(new Error('We encountered an internal error.'), {
              name: 'InternalError',
            });
          }
        }
        return next(args);
      },
      { step: 'initialize', name: 'failThirdSend' },
    );

    // Act
    const run = await stack.ops(['dlq', 'redrive', 'add-user', '--per-message'], {
      clients: { sqs: failing },
    });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('moved 5, failed 1');
    expect(run.stderr).toMatch(/FAILED \S+: InternalError: We encountered an internal error\./);
    const inSource = await receiveAllMessages(sqs, stack.queues.queueUrl, { atLeast: 5 });
    const inDlq = await receiveAllMessages(sqs, stack.queues.deadLetterQueue.queueUrl, {
      atLeast: 1,
    });
    expect(bodiesOf([...inSource, ...inDlq])).toEqual([...seeded].sort());
    expect(inDlq).toHaveLength(1);
    expect(inDlq[0]?.MessageAttributes?.errorCode?.StringValue).toBe('VALIDATION');
  });
});
