/**
 * `ops send` end to end against moto: what lands on the queue (or, through a bus rule, on its
 * target queue) is the assertion.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionOutputKeys } from '../../../lib/stack-outputs';
import {
  countMessages,
  createBusRuleToQueue,
  motoClients,
  motoSqsClient,
  receiveAllMessages,
  useMotoEnvironment,
} from '../../support/aws-clients';
import { runOpsCaptured } from '../../support/ops-run';
import { createActionStack, createOutputsOnlyStack, tempDir } from './ops-fixture';

const { sqs, events } = motoClients();

const joiner = (n: number) => ({
  correlationId: `joiner-${n}`,
  loginUserId: `person${n}@example.com`,
  firstName: 'Ada',
  lastName: 'Lovelace',
  userTemplateName: 'agent',
});

const writeJson = async (value: unknown): Promise<string> => {
  const file = path.join(await tempDir(), 'messages.json');
  await writeFile(file, JSON.stringify(value));
  return file;
};

useMotoEnvironment();

describe('ops send to the queue', () => {
  it('sends a valid message to the action queue unchanged', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    const file = await writeJson(joiner(1));

    // Act
    const run = await stack.ops(['send', 'add-user', file]);

    // Assess
    expect(run.code).toBe(0);
    const received = await receiveAllMessages(sqs, stack.queues.queueUrl, { atLeast: 1 });
    expect(received.map((m) => JSON.parse(m.Body ?? ''))).toEqual([joiner(1)]);
    expect(run.stdout).toContain(`message id ${received[0]?.MessageId}`);
    expect(run.stdout).toContain('correlationId joiner-1');
  });

  it('stops at the first failed send and names the messages not sent', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    const failingThird = motoSqsClient();
    let sends = 0;
    failingThird.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'SendMessageCommand' && ++sends === 3) {
          throw new Error('SQS throttled');
        }
        return next(args);
      },
      { step: 'initialize', name: 'failThirdSend' },
    );

    // Act
    const run = await stack.ops(['send', 'add-user', '-'], {
      stdin: JSON.stringify([joiner(1), joiner(2), joiner(3)]),
      clients: { sqs: failingThird },
    });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Message 3/3 could not be sent');
    expect(run.stderr).toContain('Sent 2 of 3; message 3 was not sent.');
    expect(await countMessages(sqs, stack.queues.queueUrl)).toBe(2);
  });

  it('sends every message of a JSON array read from stdin', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');

    // Act
    const run = await stack.ops(['send', 'add-user', '-'], {
      stdin: JSON.stringify([joiner(1), joiner(2), joiner(3)]),
    });

    // Assess
    expect(run.code).toBe(0);
    const received = await receiveAllMessages(sqs, stack.queues.queueUrl, { atLeast: 3 });
    expect(received.map((m) => JSON.parse(m.Body ?? '').correlationId).sort()).toEqual([
      'joiner-1',
      'joiner-2',
      'joiner-3',
    ]);
  });

  it('sends nothing and exits 1 naming the bad field when one message is invalid', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    const { loginUserId: _dropped, ...withoutLogin } = joiner(2);
    const file = await writeJson([joiner(1), withoutLogin]);

    // Act
    const run = await stack.ops(['send', 'add-user', file]);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Message 2 of 2 is not a valid add-user message');
    expect(run.stderr).toContain('loginUserId: is required');
    expect(run.stderr).toContain('Nothing was sent.');
    expect(await countMessages(sqs, stack.queues.queueUrl)).toBe(0);
  });

  it('never echoes the invalid value it rejects', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-or-update-campaign-record');
    const file = await writeJson({
      campaignName: 'Renewals',
      clientId: 'crm-1',
      previewRecordData: [{ key: 'phone1', value: '0151 2345 678' }],
    });

    // Act
    const run = await stack.ops(['send', 'add-or-update-campaign-record', file]);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('previewRecordData[0].value');
    expect(run.stderr).not.toContain('0151 2345 678');
    expect(await countMessages(sqs, stack.queues.queueUrl)).toBe(0);
  });

  it('reads the queue URL from the CloudFormation stack outputs without --outputs-file', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'delete-user');
    const stackName = await createOutputsOnlyStack(stack.outputs);
    const file = await writeJson({ loginUserId: 'leaver@example.com' });

    // Act
    const run = await runOpsCaptured(['send', 'delete-user', file, '--stack', stackName]);

    // Assess
    expect(run.code).toBe(0);
    const received = await receiveAllMessages(sqs, stack.queues.queueUrl, { atLeast: 1 });
    expect(received.map((m) => JSON.parse(m.Body ?? ''))).toEqual([
      { loginUserId: 'leaver@example.com' },
    ]);
  });
});

describe('ops send --event-bus', () => {
  it('puts an event with detail-type = action and the first allowed source, routed by a rule', async () => {
    // Prepare: the example config allows com.examplecorp.hr first for add-user.
    const route = await createBusRuleToQueue(events, sqs, {
      eventPattern: { source: ['com.examplecorp.hr'], 'detail-type': ['add-user'] },
    });
    const stack = await createActionStack(sqs, 'add-user', { eventBusName: route.busName });
    const file = await writeJson(joiner(7));

    // Act
    const run = await stack.ops(['send', 'add-user', file, '--event-bus']);

    // Assess
    expect(run.code).toBe(0);
    const delivered = await receiveAllMessages(sqs, route.queue.queueUrl, { atLeast: 1 });
    expect(delivered).toHaveLength(1);
    const event = JSON.parse(delivered[0]?.Body ?? '');
    expect(event).toMatchObject({
      source: 'com.examplecorp.hr',
      'detail-type': 'add-user',
      detail: joiner(7),
    });
    expect(run.stdout).toContain(`event id ${event.id}`);
    expect(await countMessages(sqs, stack.queues.queueUrl)).toBe(0);
  });

  it('refuses a --source the action rule does not accept', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    const file = await writeJson(joiner(1));

    // Act
    const run = await stack.ops([
      'send',
      'add-user',
      file,
      '--event-bus',
      '--source',
      'com.examplecorp.crm',
    ]);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--source com.examplecorp.crm is not routed to add-user');
    expect(run.stderr).toContain('com.examplecorp.hr');
  });
});

describe('ops errors', () => {
  it('says the stack does not exist, and how to point at another', async () => {
    // Prepare
    const file = await writeJson(joiner(1));

    // Act
    const run = await runOpsCaptured(['send', 'add-user', file, '--stack', 'NoSuchStack-ops']);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Stack "NoSuchStack-ops" does not exist in region us-east-1');
    expect(run.stderr).toContain('--outputs-file');
  });

  it('names the missing output when the stack lacks the action', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    const file = await writeJson({ loginUserId: 'leaver@example.com' });

    // Act
    const run = await stack.ops(['send', 'delete-user', file]);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`has no output "${actionOutputKeys('delete-user').queueUrl}"`);
    expect(run.stderr).toContain('actions.delete-user.enabled');
  });

  it('lists the valid actions for an unknown one', async () => {
    // Act
    const run = await runOpsCaptured(['dlq', 'list', 'add-users']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Unknown action "add-users"');
    expect(run.stderr).toContain('add-user, query-user-existence, delete-user');
  });
});
