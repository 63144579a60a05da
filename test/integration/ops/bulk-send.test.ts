/**
 * `ops send` bulk loads end to end against moto: what lands on the queue (drained and counted
 * per correlation id) is the assertion.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type SendMessageBatchCommandInput,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import {
  countMessages,
  createBusRuleToQueue,
  motoClients,
  motoEnvironment,
  motoSqsClient,
  receiveAllMessages,
  useMotoEnvironment,
} from '../../support/aws-clients';
import { REPO_ROOT, repoTool } from '../../support/repo-paths';
import { createActionStack, tempDir } from './ops-fixture';

const { sqs, events } = motoClients();

const HEADER = 'campaignName,clientId,data.FirstName:1,data.phone1:2,nextEarliestWorkTimeUTC:json';

/** What is wrong with line `n`'s row, or undefined for a valid row; about 1 in 50 is bad. */
const badness = (n: number): 'no-client' | 'bad-phone' | 'short' | undefined =>
  n % 97 === 0 ? 'no-client' : n % 89 === 0 ? 'bad-phone' : n % 211 === 0 ? 'short' : undefined;

/** A CSV of `rows` leads; a quoted name with a comma and a line break every 7th row. */
const leadsCsv = (rows: number): { text: string; validLines: number[]; badLines: number[] } => {
  const lines = [HEADER];
  const validLines: number[] = [];
  const badLines: number[] = [];
  let line = 2;
  for (let n = 1; n <= rows; n += 1) {
    const kind = badness(n);
    const name = n % 7 === 0 ? `"Lovelace, Ada\nCountess ""${n}"""` : `Ada ${n}`;
    const phone = kind === 'bad-phone' ? '0151 2345' : `+4915123${String(n).padStart(5, '0')}`;
    const clientId = kind === 'no-client' ? '' : `lead-${n}`;
    const row =
      kind === 'short' ? `Renewals,lead-${n}` : `Renewals,${clientId},${name},${phone},17000${n}`;
    lines.push(row);
    (kind === undefined ? validLines : badLines).push(line);
    line += n % 7 === 0 && kind !== 'short' ? 2 : 1;
  }
  return { text: `${lines.join('\r\n')}\r\n`, validLines, badLines };
};

/**
 * Receives and deletes while the load runs, as a consumer would. moto 5.2.5 counts the queue's
 * visible messages on every send, so a send gets slower the deeper the queue: a drained queue
 * keeps the test fast.
 */
const startDrainer = (queueUrl: string) => {
  // By SQS message id: a message the drainer receives twice (a delete that did not take under
  // load) is one send, not a duplicate of the CLI's.
  const bodies = new Map<string, string>();
  let stopping = false;
  const drainOnce = async (): Promise<number> => {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 10,
      }),
    );
    if (Messages.length === 0) return 0;
    for (const m of Messages) bodies.set(m.MessageId ?? '', m.Body ?? '');
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
    return Messages.length;
  };
  // Several receivers: moto serves one request at a time per core, and sends must not outpace them.
  const loops = Array.from({ length: 4 }, async () => {
    while (!stopping) {
      if ((await drainOnce()) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Done only when the queue holds nothing: one empty receive is not proof under load (a
    // received batch whose answer was lost stays invisible until its visibility timeout ends).
    // (Lines once went missing here for another reason: moto's delete could drop a batch sent
    // meanwhile; the tests' launcher takes its delete under the queue's lock now.)
    while ((await drainOnce()) > 0 || (await countMessages(sqs, queueUrl)) > 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  return {
    stop: async (): Promise<string[]> => {
      stopping = true;
      await Promise.all(loops);
      return [...bodies.values()];
    },
  };
};

const byCorrelation = (bodies: readonly string[]) => {
  const byId = new Map<string, string[]>();
  for (const body of bodies) {
    const id = JSON.parse(body).correlationId as string;
    byId.set(id, [...(byId.get(id) ?? []), body]);
  }
  return byId;
};

const lineOf = (correlationId: string): number => Number(correlationId.split('#').at(-1));

const waitForExit = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => child.on('close', (code) => resolve(code)));

useMotoEnvironment();

describe('ops send bulk load', () => {
  it('killed half-way and resumed, sends every valid line, none missing, in-flight ones at most twice', async () => {
    // Prepare: 2000 leads, ~40 of them bad, with quoted commas and line breaks.
    const stack = await createActionStack(sqs, 'add-or-update-campaign-record');
    const dir = await tempDir();
    const input = path.join(dir, 'leads.csv');
    const rejects = path.join(dir, 'rejects.jsonl');
    const checkpoint = `${input}.checkpoint.json`;
    const csv = leadsCsv(2000);
    await writeFile(input, csv.text);
    const args = ['send', 'add-or-update-campaign-record', input, '--skip-invalid', rejects];
    const parallel = 4;
    const cli = () =>
      spawn(
        repoTool('node'),
        ['--import', 'tsx', 'ops/main.ts', ...args, '--parallel', String(parallel), ...stack.args],
        {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH ?? '', HOME: dir, ...motoEnvironment() },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );

    const drainer = startDrainer(stack.queues.queueUrl);

    // Act: kill the first run (SIGKILL: no chance to tidy up) once some batches are acknowledged.
    const first = cli();
    const firstExit = waitForExit(first);
    let acknowledgedAtKill = 0;
    for (;;) {
      const text = await readFile(checkpoint, 'utf8').catch(() => undefined);
      const sent = text === undefined ? [] : (JSON.parse(text).sent as [number, number][]);
      acknowledgedAtKill = sent.reduce((sum, [a, b]) => sum + b - a + 1, 0);
      if (acknowledgedAtKill >= 200 || first.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    first.kill('SIGKILL');
    const killedWith = await firstExit;
    const second = cli();
    let secondOut = '';
    second.stdout?.on('data', (chunk: Buffer) => {
      secondOut += chunk.toString('utf8');
    });
    const secondCode = await waitForExit(second);

    // Assess: the first run really died part-way, the second finished the rest.
    expect(killedWith).toBeNull();
    expect(acknowledgedAtKill).toBeLessThan(csv.validLines.length);
    expect(secondCode).toBe(0);
    expect(secondOut).toContain(`rejected ${csv.badLines.length}`);
    const bodies = await drainer.stop();
    const byId = byCorrelation(bodies);
    const total = bodies.length;
    expect([...byId.keys()].map(lineOf).sort((a, b) => a - b)).toEqual(csv.validLines);
    // Only the batches in flight at the kill may arrive twice, as identical copies.
    const duplicated = [...byId.values()].filter((copies) => copies.length > 1);
    expect(total - byId.size).toBe(duplicated.length);
    expect(duplicated.length).toBeLessThanOrEqual(parallel * 10);
    for (const copies of duplicated) {
      expect(copies).toHaveLength(2);
      expect(new Set(copies).size).toBe(1);
    }
    const rejected = (await readFile(rejects, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rejected.map((r) => r.line)).toEqual(csv.badLines);
    expect(JSON.stringify(rejected)).not.toContain('0151 2345');
  }, 300_000);
});

const joiner = (n: number) => ({
  loginUserId: `person${n}@example.com`,
  firstName: 'Ada',
  lastName: 'Lovelace',
  userTemplateName: 'agent',
});

const writeLines = async (lines: readonly string[], name = 'joiners.jsonl'): Promise<string> => {
  const file = path.join(await tempDir(), name);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
};

const loginsOf = (bodies: readonly string[]): string[] =>
  bodies.map((b) => JSON.parse(b).loginUserId as string).sort();

describe('ops send bulk load, in process', () => {
  it('sends nothing while any line is bad, naming each bad line and field but no value', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    const file = await writeLines([
      JSON.stringify(joiner(1)),
      JSON.stringify({ ...joiner(2), firstName: ['secret-value'] }),
      '{"loginUserId": ',
      JSON.stringify(joiner(4)),
    ]);

    // Act
    const run = await stack.ops(['send', 'add-user', file]);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('line 2: not a valid add-user message: firstName:');
    expect(run.stderr).toContain('line 3: is not valid JSON');
    expect(run.stderr).toContain('2 of 4 messages are invalid. Nothing was sent');
    expect(run.stderr).not.toContain('secret-value');
    expect(await countMessages(sqs, stack.queues.queueUrl)).toBe(0);
  });

  it('retries the entries a batch rejects, on their own, and sends each message once', async () => {
    // Prepare: SQS takes every batch but rejects each entry whose number is a multiple of 7 once.
    const stack = await createActionStack(sqs, 'add-user');
    const file = await writeLines(Array.from({ length: 95 }, (_, n) => JSON.stringify(joiner(n))));
    const throttling = motoSqsClient();
    const rejectedOnce = new Set<string>();
    throttling.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'SendMessageBatchCommand') return next(args);
        const input = args.input as SendMessageBatchCommandInput;
        const rejected = (input.Entries ?? []).filter(
          (e) =>
            Number(e.Id) % 7 === 0 &&
            !rejectedOnce.has(e.Id ?? '') &&
            (input.Entries ?? []).length > 1,
        );
        for (const entry of rejected) rejectedOnce.add(entry.Id ?? '');
        const kept = (input.Entries ?? []).filter((e) => !rejected.includes(e));
        const result = await next({ ...args, input: { ...input, Entries: kept } });
        const output = result.output as { Failed?: unknown[] };
        output.Failed = [
          ...(output.Failed ?? []),
          ...rejected.map((e) => ({ Id: e.Id, Code: 'ThrottlingException', SenderFault: false })),
        ];
        return result;
      },
      { step: 'initialize', name: 'rejectSomeEntriesOnce' },
    );

    // Act
    const run = await stack.ops(['send', 'add-user', file], {
      clients: { sqs: throttling },
    });

    // Assess
    expect(run.stderr).not.toContain('could not be sent');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Sent 95 messages');
    expect(run.stdout).toContain(`retried ${rejectedOnce.size}; failed 0`);
    const received = await receiveAllMessages(sqs, stack.queues.queueUrl, { atLeast: 95 });
    expect(loginsOf(received.map((m) => m.Body ?? ''))).toEqual(
      Array.from({ length: 95 }, (_, n) => joiner(n).loginUserId).sort(),
    );
  });

  it('reports an entry SQS refuses as its fault, exits 1, and a rerun sends only that one', async () => {
    // Prepare: the first run's SQS refuses line 3 as the sender's fault (no retry helps).
    const stack = await createActionStack(sqs, 'add-user');
    const file = await writeLines(Array.from({ length: 25 }, (_, n) => JSON.stringify(joiner(n))));
    const refusing = motoSqsClient();
    refusing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'SendMessageBatchCommand') return next(args);
        const input = args.input as SendMessageBatchCommandInput;
        const kept = (input.Entries ?? []).filter((e) => e.Id !== '2');
        if (kept.length === (input.Entries ?? []).length) return next(args);
        const result = await next({ ...args, input: { ...input, Entries: kept } });
        (result.output as { Failed?: unknown[] }).Failed = [
          { Id: '2', Code: 'InvalidParameterValue', SenderFault: true, Message: 'refused' },
        ];
        return result;
      },
      { step: 'initialize', name: 'refuseOneEntry' },
    );

    // Act
    const first = await stack.ops(['send', 'add-user', file], {
      clients: { sqs: refusing },
    });
    const rerun = await stack.ops(['send', 'add-user', file]);
    const again = await stack.ops(['send', 'add-user', file]);

    // Assess
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(
      'line 3 could not be sent to the add-user queue: InvalidParameterValue: refused',
    );
    expect(first.stderr).toContain('1 messages were not sent: rerun the same command');
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain('Sent 1 message to the add-user queue');
    expect(again.stdout).toContain('Sent 0 messages');
    const received = await receiveAllMessages(sqs, stack.queues.queueUrl, { atLeast: 25 });
    expect(loginsOf(received.map((m) => m.Body ?? ''))).toEqual(
      Array.from({ length: 25 }, (_, n) => joiner(n).loginUserId).sort(),
    );
  });

  it('refuses to resume when the file changed since its checkpoint', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    const file = await writeLines([JSON.stringify(joiner(1))]);
    const first = await stack.ops(['send', 'add-user', file]);
    await writeFile(file, `${JSON.stringify(joiner(1))}\n${JSON.stringify(joiner(2))}\n`);

    // Act
    const changed = await stack.ops(['send', 'add-user', file]);

    // Assess
    expect(first.code).toBe(0);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('the input file changed since it was written');
    expect(await countMessages(sqs, stack.queues.queueUrl)).toBe(1);
  });

  it('sends nothing when the checkpoint cannot be written', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'add-user');
    const file = await writeLines(Array.from({ length: 25 }, (_, n) => JSON.stringify(joiner(n))));
    const checkpoint = path.join(await tempDir(), 'missing-dir', 'load.checkpoint.json');

    // Act
    const run = await stack.ops(['send', 'add-user', file, '--checkpoint', checkpoint]);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Cannot write the checkpoint ${checkpoint}`);
    expect(await countMessages(sqs, stack.queues.queueUrl)).toBe(0);
  });

  it('puts events in tens on the bus, stamped from a CSV, with --event-bus', async () => {
    // Prepare
    const route = await createBusRuleToQueue(events, sqs, {
      eventPattern: { source: ['com.examplecorp.hr'], 'detail-type': ['add-user'] },
    });
    const stack = await createActionStack(sqs, 'add-user', { eventBusName: route.busName });
    const rows = Array.from({ length: 23 }, (_, n) => `person${n}@example.com,Ada,Lovelace,agent`);
    const file = await writeLines(
      ['loginUserId,firstName,lastName,userTemplateName', ...rows],
      'joiners.csv',
    );

    // Act
    const run = await stack.ops([
      'send',
      'add-user',
      file,
      '--event-bus',
      '--exported-at',
      '2026-11-24T09:30:00Z',
    ]);

    // Assess
    expect(run.code).toBe(0);
    const delivered = await receiveAllMessages(sqs, route.queue.queueUrl, { atLeast: 23 });
    const details = delivered.map((m) => JSON.parse(m.Body ?? '').detail);
    expect(details).toHaveLength(23);
    expect(details.map((d) => d.loginUserId).sort()).toEqual(
      Array.from({ length: 23 }, (_, n) => `person${n}@example.com`).sort(),
    );
    for (const detail of details) {
      expect(detail.occurredAt).toBe('2026-11-24T09:30:00.000Z');
      expect(detail.correlationId).toMatch(/^joiners\.csv@[0-9a-f]{12}#\d+$/);
    }
    expect(await countMessages(sqs, stack.queues.queueUrl)).toBe(0);
  });
});
