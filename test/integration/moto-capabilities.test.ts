/**
 * Proves the pinned moto server emulates what the integration tests rely on, so a failure in
 * a handler test is never the emulator silently lacking a feature.
 */
import { spawn } from 'node:child_process';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { ensurePythonTools, PINNED_PYTHON_PACKAGES } from '../../local/aws-emulator/python-tools';
import {
  countMessages,
  createBusRuleToQueue,
  createQueueWithDlq,
  createSecret,
  motoClients,
  putSecretValue,
  receiveAllMessages,
} from '../support/aws-clients';

const { sqs, events, secrets } = motoClients();

const versionOf = (executable: string): Promise<string> =>
  new Promise((resolve, reject) => {
    let output = '';
    const child = spawn(executable, ['--version'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', () => resolve(output.trim()));
  });

describe('python tools', () => {
  it('installs the pinned cfn-lint and reuses the venv on a second call', async () => {
    // Prepare
    const pinnedCfnLint = PINNED_PYTHON_PACKAGES.find((p) => p.startsWith('cfn-lint=='));

    // Act
    const first = await ensurePythonTools();
    const second = await ensurePythonTools();

    // Assess
    expect(second).toEqual(first);
    expect(await versionOf(first.cfnLint)).toContain(pinnedCfnLint?.split('==')[1]);
  });
});

describe('moto SQS', () => {
  it('keeps String message attributes and counts receives', async () => {
    // Prepare
    const queue = await createQueueWithDlq(sqs, { maxReceiveCount: 3 });

    // Act
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queue.queueUrl,
        MessageBody: '{"a":1}',
        MessageAttributes: { reason: { DataType: 'String', StringValue: 'why ✓' } },
      }),
    );
    await receiveAllMessages(sqs, queue.queueUrl, { atLeast: 1 });
    const [second] = await receiveAllMessages(sqs, queue.queueUrl, { atLeast: 1 });

    // Assess
    expect(second?.Body).toBe('{"a":1}');
    expect(second?.MessageAttributes?.reason).toEqual({ DataType: 'String', StringValue: 'why ✓' });
    expect(second?.Attributes?.ApproximateReceiveCount).toBe('2');
  });

  it('moves a message to the DLQ once maxReceiveCount receives are used up', async () => {
    // Prepare
    const queue = await createQueueWithDlq(sqs, { maxReceiveCount: 1 });
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: 'poison' }));
    await receiveAllMessages(sqs, queue.queueUrl, { atLeast: 1 });

    // Act
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.queueUrl, MaxNumberOfMessages: 10 }),
    );

    // Assess
    expect(Messages).toEqual([]);
    const dead = await receiveAllMessages(sqs, queue.deadLetterQueue.queueUrl, { atLeast: 1 });
    expect(dead.map((m) => m.Body)).toEqual(['poison']);
    expect(await countMessages(sqs, queue.queueUrl)).toBe(0);
  });
});

describe('moto EventBridge', () => {
  it('delivers only events matching source + detail-type to the rule’s SQS target', async () => {
    // Prepare
    const route = await createBusRuleToQueue(events, sqs, {
      eventPattern: { source: ['crm'], 'detail-type': ['add-user'] },
    });

    // Act
    const put = await events.send(
      new PutEventsCommand({
        Entries: [
          { EventBusName: route.busName, Source: 'crm', DetailType: 'add-user', Detail: '{"n":1}' },
          { EventBusName: route.busName, Source: 'crm', DetailType: 'delete-user', Detail: '{}' },
          { EventBusName: route.busName, Source: 'other', DetailType: 'add-user', Detail: '{}' },
        ],
      }),
    );

    // Assess
    expect(put.FailedEntryCount).toBe(0);
    const delivered = await receiveAllMessages(sqs, route.queue.queueUrl, { atLeast: 1 });
    expect(delivered).toHaveLength(1);
    expect(JSON.parse(delivered[0]?.Body ?? '')).toMatchObject({
      source: 'crm',
      'detail-type': 'add-user',
      detail: { n: 1 },
      id: put.Entries?.[0]?.EventId,
    });
  });
});

describe('moto Secrets Manager', () => {
  it('returns the latest value after PutSecretValue', async () => {
    // Prepare
    const secret = await createSecret(secrets, 'first');
    const before = await secrets.send(new GetSecretValueCommand({ SecretId: secret.name }));

    // Act
    await putSecretValue(secrets, secret.name, 'second');
    const after = await secrets.send(new GetSecretValueCommand({ SecretId: secret.arn }));

    // Assess
    expect(before.SecretString).toBe('first');
    expect(after.SecretString).toBe('second');
  });
});
