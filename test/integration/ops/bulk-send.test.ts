/**
 * `ops send` bulk loads end to end against moto: what lands on the queue (drained and counted
 * per correlation id) is the assertion.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  motoEnvironment,
  motoEventBridgeClient,
  motoSqsClient,
  stubMotoEnvironment,
} from '../../support/aws-clients';
import { createActionStack, tempDir } from './ops-fixture';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const NODE = path.join(REPO_ROOT, 'node_modules', '.bin', 'node');
const sqs = motoSqsClient();
const _events = motoEventBridgeClient();

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
  const bodies: string[] = [];
  let stopping = false;
  const drainOnce = async (): Promise<number> => {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 60,
      }),
    );
    if (Messages.length === 0) return 0;
    bodies.push(...Messages.map((m) => m.Body ?? ''));
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
    while ((await drainOnce()) > 0) {}
  });
  return {
    stop: async (): Promise<string[]> => {
      stopping = true;
      await Promise.all(loops);
      return bodies;
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

beforeEach(() => {
  stubMotoEnvironment();
});

afterEach(() => {
  vi.unstubAllEnvs();
});

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
        NODE,
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
