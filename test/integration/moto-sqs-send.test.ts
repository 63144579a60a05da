/**
 * The tests' moto sends SQS messages through its launcher's copy of moto's send
 * (local/aws-emulator/atomic_moto_server.py): the same send, except that it no longer scans
 * every message the queue holds to learn whether the queue deduplicates by content. What that
 * setting decides must still hold, and a send must no longer build the queue's attributes. Its
 * receive checks each message's retention the same way, without the attributes either.
 */

import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { ensurePythonTools } from '../../local/aws-emulator/python-tools';
import { createQueue, motoSqsClient, receiveAllMessages, uniqueName } from '../support/aws-clients';

const sqs = motoSqsClient();
const LAUNCHER_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../local/aws-emulator');

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

/**
 * Runs Python on the launcher's patched moto, in one account's region (`backend`): `setup`, then
 * `act` with every build of a queue's attributes (which scans each message it holds) counted in
 * `reads`. Answers what it printed.
 */
const countingAttributeReads = async (setup: string, act: string): Promise<string> => {
  const { python } = await ensurePythonTools();
  const script = `
import sys
sys.argv = ["atomic_moto_server"]
sys.path.insert(0, ${JSON.stringify(LAUNCHER_DIR)})
import atomic_moto_server
from moto.sqs import models as sqs
reads = 0
built = sqs.Queue.attributes.fget
def counted(queue):
    global reads
    reads += 1
    return built(queue)
backend = sqs.sqs_backends["123456789012"]["us-east-1"]
${setup}
sqs.Queue.attributes = property(counted)
${act}
`;
  const { stdout } = await promisify(execFile)(python, ['-c', script]);
  return stdout.trim();
};

describe('moto SQS as the tests start it', () => {
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

  it('sends without reading the queue attributes that scan every held message', async () => {
    // Prepare: a queue holding 50 messages.
    const setup = `
backend.create_queue("standard")
for n in range(50):
    backend.send_message("standard", "held")`;

    // Act
    const printed = await countingAttributeReads(
      setup,
      `
backend.send_message("standard", "one more")
backend.send_message_batch("standard", {"a": {"Id": "a", "MessageBody": "x", "MessageAttributes": {}, "DelaySeconds": None}})
print(reads, len(backend.get_queue("standard")._messages))`,
    );

    // Assess: no attribute build per send, one by one or batched; both messages still land.
    // (FIFO sends still build them in moto's own dedup code; this project has no FIFO queue.)
    expect(printed).toBe('0 52');
  });

  it('receives without reading the queue attributes, and still drops what outlived retention', async () => {
    // Prepare: moto's receive built every attribute three times per message it returned.
    const setup = `
backend.create_queue("standard")
backend.create_queue("short", MessageRetentionPeriod="60")
for n in range(50):
    backend.send_message("standard", "held")
backend.send_message("short", "kept")
backend.send_message("short", "expired").sent_timestamp -= 61_000`;

    // Act
    const printed = await countingAttributeReads(
      setup,
      `
received = backend.receive_message("standard", 10, 0, 30)
short = backend.receive_message("short", 10, 0, 30)
print(reads, len(received), ",".join(m.body for m in short))`,
    );

    // Assess: ten received with no attribute build; the message past its 60 s is not delivered.
    expect(printed).toBe('0 10 kept');
  });

  it('keeps a message sent while a delete walks the queue (moto assigned the walked list over it)', async () => {
    // Prepare: one message received; the queue's list lets a send arrive on another thread just
    // as a walk over it ends (given 0.2 s to land), as a loaded server may interleave them.
    const setup = `
import threading
queue = backend.create_queue("standard")
backend.send_message("standard", "old")
handle = backend.receive_message("standard", 1, 0, 30)[0].receipt_handle
class SendArrivesAsAWalkEnds(list):
    def __iter__(self):
        yield from list.__iter__(self)
        if getattr(self, "fired", False):
            return
        self.fired = True
        sender = threading.Thread(target=backend.send_message, args=("standard", "new"))
        sender.start()
        sender.join(0.2)
queue._messages = SendArrivesAsAWalkEnds(queue._messages)`;

    // Act: the delete's walk ends and the send arrives before its result is assigned.
    const printed = await countingAttributeReads(
      setup,
      `
backend.delete_message("standard", handle)
import time
time.sleep(0.5)
print(",".join(sorted(m.body for m in queue._messages)))`,
    );

    // Assess: the delete removed what it named, and the message sent meanwhile is still there.
    expect(printed).toBe('new');
  });
});
