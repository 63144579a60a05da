/**
 * `npx tsx bench/bulk-load.ts [--messages N] [--sample N] [--rtt MS] [--parallel N]`: times
 * `ops send` into an SQS queue of moto, the bulk load (JSON Lines, ten a call, `--parallel` calls
 * in flight, the CLI's default unless given) against the one-by-one send of a JSON array. Not
 * part of `npm run bench` or the tests; prints its numbers.
 *
 * `--rtt` puts a network round trip of that many milliseconds between the CLI and moto (a
 * loopback proxy delaying each direction by half), as between an operator's machine and SQS;
 * on bare loopback there is none, and moto's own work per message sets both paces instead.
 *
 * moto starts through the tests' launcher, whose SendMessage costs the same at any queue depth
 * (moto alone scans every held message on each send; docs/decisions.md), so both queues simply
 * fill. The one-by-one send is timed on a sample and extrapolated: its rate does not change with
 * the depth.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { actionOutputKeys, EVENT_BUS_OUTPUT_KEY } from '../lib/stack-outputs';
import { startMotoServer } from '../local/aws-emulator/moto-server';
import { DEFAULT_PARALLEL } from '../ops/bulk/bulk-send';
import type { OpsWriter } from '../ops/io';
import { runOps } from '../ops/main';
import { startLatencyProxy } from './latency-proxy';

const { values } = parseArgs({
  options: {
    messages: { type: 'string' },
    sample: { type: 'string' },
    rtt: { type: 'string' },
    parallel: { type: 'string' },
  },
});
const MESSAGES = Number(values.messages ?? 50_000);
const SAMPLE = Number(values.sample ?? 2_000);
const RTT_MS = Number(values.rtt ?? 0);
const PARALLEL = values.parallel === undefined ? [] : ['--parallel', values.parallel];

const sink: OpsWriter = { write: () => true };
const log = (line: string) => process.stderr.write(`${line}\n`);

const server = await startMotoServer();
const proxy = RTT_MS > 0 ? await startLatencyProxy(server.port, RTT_MS) : undefined;
try {
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_REGION: 'us-east-1',
    // The CLI goes through the round trip; the bench's own setup does not.
    AWS_ENDPOINT_URL_SQS: proxy?.endpoint ?? server.endpoint,
  });
  const sqs = new SQSClient({ endpoint: server.endpoint });
  const dir = await mkdtemp(path.join(tmpdir(), 'bulk-bench-'));

  /** A fresh queue and its outputs file, as `ops --outputs-file` takes them. */
  const target = async (name: string) => {
    const { QueueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
    const keys = actionOutputKeys('add-user');
    const outputsFile = path.join(dir, `${name}-outputs.json`);
    // The SDK sends to the queue URL's host, so the CLI's URL names the proxy.
    const cliQueueUrl =
      proxy === undefined ? QueueUrl : QueueUrl.replace(server.endpoint, proxy.endpoint);
    const outputs = {
      [keys.queueUrl]: cliQueueUrl,
      [keys.deadLetterQueueUrl]: cliQueueUrl,
      [EVENT_BUS_OUTPUT_KEY]: 'unused',
    };
    await writeFile(outputsFile, JSON.stringify({ Bench: outputs }));
    return ['--stack', 'Bench', '--outputs-file', outputsFile];
  };

  const message = (n: number) => ({
    loginUserId: `person${n}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    userTemplateName: 'agent',
  });

  const timed = async (argv: readonly string[]): Promise<number> => {
    const started = performance.now();
    const code = await runOps(argv, { stdout: sink, stderr: sink });
    if (code !== 0) throw new Error(`ops ${argv.join(' ')} exited ${code}`);
    return (performance.now() - started) / 1000;
  };

  log(`one-by-one: ${SAMPLE} messages (JSON array)…`);
  const single = await target('bench-single');
  const sampleFile = path.join(dir, 'sample.json');
  await writeFile(sampleFile, JSON.stringify(Array.from({ length: SAMPLE }, (_, n) => message(n))));
  const singleSeconds = await timed(['send', 'add-user', sampleFile, ...single]);

  log(`bulk: ${MESSAGES} messages (JSON Lines)…`);
  const bulk = await target('bench-bulk');
  const bulkFile = path.join(dir, 'leads.jsonl');
  await writeFile(
    bulkFile,
    `${Array.from({ length: MESSAGES }, (_, n) => JSON.stringify(message(n))).join('\n')}\n`,
  );
  const bulkSeconds = await timed(['send', 'add-user', bulkFile, ...bulk, ...PARALLEL]);

  const singleRate = SAMPLE / singleSeconds;
  const bulkRate = MESSAGES / bulkSeconds;
  const extrapolated = MESSAGES / singleRate;
  process.stdout.write(
    [
      `round trip: ${RTT_MS} ms; bulk calls in flight: ${values.parallel ?? `${DEFAULT_PARALLEL} (the default)`}`,
      `one-by-one: ${SAMPLE} messages in ${singleSeconds.toFixed(1)} s = ${singleRate.toFixed(0)}/s; ${MESSAGES} extrapolated: ${extrapolated.toFixed(0)} s`,
      `bulk:       ${MESSAGES} messages in ${bulkSeconds.toFixed(1)} s = ${bulkRate.toFixed(0)}/s (validation and stamping included)`,
      `speed-up:   ${(extrapolated / bulkSeconds).toFixed(1)}x (target 10x)`,
      '',
    ].join('\n'),
  );
} finally {
  await proxy?.close();
  await server.stop();
}
