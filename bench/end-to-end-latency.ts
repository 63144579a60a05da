/**
 * End-to-end latency: from a producer's SendMessage to the platform request it leads to, on
 * the local emulator. moto holds the function's queue, ledger table and secret; the bundled
 * handler runs behind an emulation of Lambda's event source mapping with the batching window
 * and batch size the deployment configures (`workers/event-source.ts`); the platform is the
 * simulator, behind a recording proxy in this process. Both ends are stamped on this process's
 * clock: just before SendMessage, and when the request's headers reach the proxy.
 *
 * The producer sends at a steady rate, one SendMessage after another, after a few warm-up
 * messages have reached the platform (the container's cold start is not part of a steady
 * stream). moto and the simulator answer on loopback; the simulator waits the modelled
 * platform latency before it answers, which paces the batches but not the measured span.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { Duration } from 'aws-cdk-lib';
import { visibilityTimeoutFor } from '../lib/action-pipeline';
import { rateSharePerInstance } from '../lib/config';
import { handlerEnvironment } from '../lib/handler-environment';
import { createLedgerTable } from '../local/aws-emulator/ledger-table';
import { startMotoServer } from '../local/aws-emulator/moto-server';
import type { WorkerScripts } from './build';
import { lambdaHeapArgs, runWorker } from './child';
import type { ModelledLatency } from './modelled-latency';
import type { EventSourceJob, EventSourceResult } from './protocol';
import { markdownTable, ms, percentile, type Row } from './report';
import { BENCH_API_KEY, benchMessage, type Scenario } from './scenario';
import type { SimulatorProcess } from './simulator-process';

export interface EndToEndOptions {
  readonly scenario: Scenario;
  readonly workers: WorkerScripts;
  readonly bundle: string;
  readonly simulator: SimulatorProcess;
  readonly latency: ModelledLatency;
  /** Measured messages, after the warm-up. */
  readonly messages: number;
  readonly perSecond: number;
  readonly progress: (line: string) => void;
}

export interface EndToEndResult {
  readonly messages: number;
  readonly perSecond: number;
  readonly batchingWindowSeconds: number;
  readonly pollers: number;
  /** SendMessage to platform request of each measured message, ms, sorted. */
  readonly latenciesMs: readonly number[];
  /** Records of each invocation (warm-up included). */
  readonly batchSizes: readonly number[];
}

/** Lambda's SQS event source mapping starts with five batches in flight (at most maxConcurrency). */
const INITIAL_POLLERS = 5;
const WARMUP_MESSAGES = 10;
const CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };

/** In front of the simulator: stamps each request's arrival by the record it names, forwards it. */
const startRecordingProxy = async (target: string) => {
  const arrivals = new Map<string, number>();
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const arrived = performance.now();
    // The handler's platform requests are JSON, so the text is the very bytes it sent.
    text(req)
      .then((body) => {
        const clientId = (JSON.parse(body || '{}') as { clientId?: unknown }).clientId;
        if (typeof clientId === 'string' && !arrivals.has(clientId)) {
          arrivals.set(clientId, arrived);
        }
        const forward = httpRequest(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forward.on('error', () => res.destroy());
        forward.end(body);
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

export const measureEndToEnd = async (options: EndToEndOptions): Promise<EndToEndResult> => {
  const { scenario, simulator, progress } = options;
  const { config, action, lambda } = scenario;
  progress('  starting moto…');
  const moto = await startMotoServer();
  const proxy = await startRecordingProxy(simulator.baseUrl);
  const clientConfig = { endpoint: moto.endpoint, region: lambda.region, credentials: CREDENTIALS };
  const sqs = new SQSClient(clientConfig);
  try {
    const settings = config.actions[action];
    const visibility = visibilityTimeoutFor(
      Duration.seconds(settings.timeoutSeconds),
      Duration.seconds(settings.maxBatchingWindowSeconds),
    ).toSeconds();
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${action}-dlq` }));
    const queue = await sqs.send(
      new CreateQueueCommand({
        QueueName: action,
        Attributes: { VisibilityTimeout: String(visibility) },
      }),
    );
    const queueUrl = queue.QueueUrl ?? '';
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    );
    const table = `${action}-ledger`;
    await createLedgerTable(new DynamoDBClient(clientConfig), table);
    await new SecretsManagerClient({ ...clientConfig, region: config.apiKey.secretsRegion }).send(
      new CreateSecretCommand({ Name: config.apiKey.secretId, SecretString: BENCH_API_KEY }),
    );
    await simulator.reset();
    await simulator.setFaults({ latencyMs: options.latency.platformMs });

    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TZ: ':UTC',
      // As configured, pacing and census included: a steady stream meets them too.
      ...handlerEnvironment(config, action, {
        deadLetterQueueUrl: dlq.QueueUrl ?? '',
        sourceQueueUrl: queueUrl,
        breakerTableName: table,
        ledgerTableName: table,
      }),
      API_BASE_URL: proxy.url,
      AWS_REGION: lambda.region,
      AWS_DEFAULT_REGION: lambda.region,
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_LAMBDA_FUNCTION_NAME: lambda.functionName,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(lambda.memoryMiB),
    };
    const pollers = Math.min(INITIAL_POLLERS, scenario.maxConcurrency);
    const job: EventSourceJob = {
      bundle: options.bundle,
      queueUrl,
      queueArn: Attributes.QueueArn ?? '',
      batchSize: scenario.batchSize,
      batchingWindowSeconds: scenario.batchingWindowSeconds,
      pollers,
      expected: WARMUP_MESSAGES + options.messages,
      lambda,
    };
    const consumer = runWorker<EventSourceResult>(
      options.workers.eventSource,
      job,
      env,
      lambdaHeapArgs(lambda.memoryMiB),
    );

    const sent = new Map<string, number>();
    const send = async (id: string, n: number): Promise<void> => {
      const message = benchMessage(id, n);
      const body = JSON.stringify({ ...message, occurredAt: new Date().toISOString() });
      sent.set(String(message.clientId), performance.now());
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    };
    /** Every message sent so far is applied and deleted. */
    const settled = async (): Promise<boolean> => {
      const { Attributes: counts = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      return (
        counts.ApproximateNumberOfMessages === '0' &&
        counts.ApproximateNumberOfMessagesNotVisible === '0'
      );
    };

    // The cold start is not part of a steady stream, nor the pacing it begins with: until its
    // first census check-in answers, an instance reserves its slots at the static share of the
    // ceiling, and the last slot so reserved ends one static interval after the warm-up's last
    // request.
    progress(`  warm-up: ${WARMUP_MESSAGES} messages through a cold container…`);
    for (let n = 0; n < WARMUP_MESSAGES; n += 1) await send(`e2e-warmup-${n}`, n);
    while (!(await settled())) await sleep(50);
    await sleep(1000 / rateSharePerInstance(config, action));

    progress(`  ${options.messages} messages at ${options.perSecond}/s…`);
    const measured: string[] = [];
    const started = performance.now();
    for (let n = 0; n < options.messages; n += 1) {
      const due = started + (n * 1000) / options.perSecond;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      await send(`e2e-${n}`, n);
      measured.push(`BENCH-e2e-${n}`);
    }
    const result = await consumer;
    if (result.deleted !== job.expected) {
      throw new Error(`end to end: ${result.deleted} of ${job.expected} messages were applied`);
    }
    const latenciesMs = measured
      .map((id) => {
        const from = sent.get(id);
        const to = proxy.arrivals.get(id);
        if (from === undefined || to === undefined) {
          throw new Error(`end to end: no platform request for ${id}`);
        }
        return to - from;
      })
      .sort((a, b) => a - b);
    return {
      messages: options.messages,
      perSecond: options.perSecond,
      batchingWindowSeconds: scenario.batchingWindowSeconds,
      pollers,
      latenciesMs,
      batchSizes: result.batchSizes,
    };
  } finally {
    await simulator.setFaults({});
    sqs.destroy();
    await proxy.close();
    await moto.stop();
  }
};

export const meanBatchOf = (result: EndToEndResult): number =>
  result.batchSizes.reduce((sum, n) => sum + n, 0) / Math.max(1, result.batchSizes.length);

export const endToEndRows = (result: EndToEndResult): Row[] =>
  ([50, 99] as const).map((p) => ({
    metric: `end to end, SendMessage to platform request, p${p} (moto, ${result.perSecond}/s, batching window ${result.batchingWindowSeconds} s)`,
    value: ms(percentile(result.latenciesMs, p)),
    baseline: `${result.messages} messages`,
    ratio: '-',
    target: '-',
    verdict: 'info',
  }));

export const endToEndMarkdown = (result: EndToEndResult): string[] => [
  '### End to end',
  '',
  `${result.messages} messages sent one SendMessage at a time at ${result.perSecond} a second to the function's queue in moto, after ${WARMUP_MESSAGES} warm-up messages; ${result.pollers} batches in flight, batch size and batching window (${result.batchingWindowSeconds} s) as configured. The function's invocations held ${meanBatchOf(result).toFixed(2)} messages on average (${result.batchSizes.length} invocations).`,
  '',
  markdownTable(
    ['p50', 'p90', 'p99', 'max'],
    [[50, 90, 99, 100].map((p) => percentile(result.latenciesMs, p).toFixed(1))],
  ),
  '',
];
