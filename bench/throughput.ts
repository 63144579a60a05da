/**
 * Throughput (and the handler side's peak RSS): the same messages through the bundled handler
 * and, as the baseline, the same platform requests through a bare keep-alive fetch loop (issue
 * 6's definition, which the target applies to). The same requests also go through a bare
 * keep-alive node:http loop with the product transport's agent settings: an informational
 * second baseline, since the handler itself no longer uses fetch.
 *
 * "The same concurrency": the handler side has `maxConcurrency` batches in flight, and each
 * batch sends up to min(batchSize, recordConcurrency) requests at once, so at most
 * maxConcurrency × min(batchSize, recordConcurrency) requests are in flight. The baseline keeps
 * exactly that many in flight all the time; the handler side also pays for waiting on the
 * slowest record of each batch, which is part of what the ratio measures.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkerScripts } from './build';
import { lambdaHeapArgs, runWorker } from './child';
import type { FakeDynamoDb } from './fake-dynamodb';
import { OUT_DIR } from './paths';
import type { HandlerLoadJob, LoadResult, MessagePhases, RequestLoadJob } from './protocol';
import { benchBodies, recordRequests, type Scenario } from './scenario';
import type { SimulatorProcess } from './simulator-process';

export interface ThroughputOptions {
  readonly scenario: Scenario;
  readonly simulator: SimulatorProcess;
  readonly workers: WorkerScripts;
  readonly bundle: string;
  /** The same handler built without the entity ledger (the "without" side). */
  readonly noLedgerBundle: string;
  /** The fake DynamoDB the handler's ledger talks to. */
  readonly ledger: FakeDynamoDb;
  readonly lambdaEnv: Readonly<Record<string, string>>;
  readonly messages: number;
  readonly warmupMessages: number;
  readonly rounds: number;
  readonly progress: (line: string) => void;
}

/** The runs of a round: the handler with and without the ledger, and the two bare loops. */
export type Side = 'handler' | 'noLedger' | 'bareFetch' | 'bareHttp';

export const SIDES: readonly Side[] = ['bareFetch', 'bareHttp', 'noLedger', 'handler'];

export interface ThroughputRound {
  /** The order the sides ran in this round. */
  readonly order: readonly Side[];
  readonly results: { readonly [S in Side]: LoadResult };
  /** Simulator CPU time per request during each side's run (warm-up included), ms. */
  readonly simulatorCpuMsPerRequest: { readonly [S in Side]: number | undefined };
  /** DynamoDB requests of the handler side, by operation (warm-up included). */
  readonly ledgerRequests: Readonly<Record<string, number>>;
  /** Reads (and writes) of the circuit breaker's shared state by the handler side. */
  readonly breakerRequests: number;
  /** Largest ledger item the handler side stored, bytes. */
  readonly ledgerItemBytes: number;
}

export interface ThroughputResult {
  readonly messages: number;
  readonly warmupMessages: number;
  readonly batchesInFlight: number;
  readonly requestsInFlight: number;
  /** The fake DynamoDB's fixed latency per request, ms. */
  readonly ledgerLatencyMs: number;
  readonly rounds: readonly ThroughputRound[];
}

export const perSecond = (phase: { items: number; elapsedMs: number }): number =>
  phase.items / (phase.elapsedMs / 1000);

/** Every request reached the platform once and was applied: the run measured real work. */
const checkApplied = async (
  simulator: SimulatorProcess,
  expected: number,
  what: string,
): Promise<void> => {
  const stats = await simulator.stats();
  const endpoint = stats.endpoints.addOrUpdateCampaignRecord;
  const applied = endpoint?.result.SUCCESS ?? 0;
  if (stats.requests !== expected || applied !== expected) {
    throw new Error(
      `${what}: the simulator saw ${stats.requests} requests and ${applied} SUCCESS answers, expected ${expected}`,
    );
  }
};

export const measureThroughput = async (options: ThroughputOptions): Promise<ThroughputResult> => {
  const { scenario, simulator, workers, progress } = options;
  const dir = join(OUT_DIR, 'throughput');
  await mkdir(dir, { recursive: true });

  const bodies: MessagePhases<string> = {
    warmup: benchBodies('warmup', options.warmupMessages),
    measured: benchBodies('msg', options.messages),
  };
  const requests = {
    warmup: await recordRequests(scenario, simulator.baseUrl, bodies.warmup),
    measured: await recordRequests(scenario, simulator.baseUrl, bodies.measured),
  };
  const messagesFile = join(dir, 'messages.json');
  const requestsFile = join(dir, 'requests.json');
  await writeFile(messagesFile, JSON.stringify(bodies));
  await writeFile(requestsFile, JSON.stringify(requests));

  const requestsInFlight =
    scenario.maxConcurrency * Math.min(scenario.batchSize, scenario.recordConcurrency);
  const handlerJob: HandlerLoadJob = {
    bundle: options.bundle,
    messagesFile,
    batchSize: scenario.batchSize,
    batchesInFlight: scenario.maxConcurrency,
    lambda: scenario.lambda,
  };
  const loopJob: RequestLoadJob = { requestsFile, concurrency: requestsInFlight };
  const total = options.warmupMessages + options.messages;
  // The bare loops need no AWS settings; PATH only, so no child inherits the bench's env.
  const loopEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  // Every side gets the heap budget of the function, so none can trade memory for speed.
  const heapArgs = lambdaHeapArgs(scenario.lambda.memoryMiB);
  const { BREAKER_TABLE_NAME: _breaker, ...withoutBreaker } = options.lambdaEnv;
  const launch: { readonly [S in Side]: () => Promise<LoadResult> } = {
    handler: () => runWorker(workers.handlerLoad, handlerJob, options.lambdaEnv, heapArgs),
    // Without the ledger and without the breaker's shared state: no DynamoDB at all.
    noLedger: () =>
      runWorker(
        workers.handlerLoad,
        { ...handlerJob, bundle: options.noLedgerBundle },
        withoutBreaker,
        heapArgs,
      ),
    bareFetch: () => runWorker(workers.fetchLoad, loopJob, loopEnv, heapArgs),
    bareHttp: () => runWorker(workers.httpLoad, loopJob, loopEnv, heapArgs),
  };

  /** Runs one side against a freshly reset simulator; also returns its CPU ms per request. */
  const runSide = async (side: Side) => {
    await simulator.reset();
    options.ledger.reset();
    const before = await simulator.cpuMs();
    const result = await launch[side]();
    const after = await simulator.cpuMs();
    await checkApplied(simulator, total, `${side} run`);
    const failed = result.warmup.failures + result.measured.failures;
    if (failed > 0) throw new Error(`${side} run: ${failed} messages failed`);
    // A keep-alive loop never needs more connections than requests in flight; more would
    // mean it measured connection set-up, not the loop.
    if (result.socketsOpened !== undefined && result.socketsOpened > requestsInFlight) {
      throw new Error(
        `${side} run opened ${result.socketsOpened} connections for ${requestsInFlight} requests in flight: keep-alive did not hold`,
      );
    }
    const simulatorCpuMs =
      before === undefined || after === undefined ? undefined : (after - before) / total;
    const ledgerRequests = { ...options.ledger.requests };
    return {
      result,
      simulatorCpuMs,
      ledgerRequests,
      breakerRequests: options.ledger.breakerRequests,
      ledgerItemBytes: options.ledger.largestItemBytes,
    };
  };

  const rounds: ThroughputRound[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    // Each round starts with a different side, so drift of the machine hits all three alike.
    const order = SIDES.map((_, i) => SIDES[(i + round - 1) % SIDES.length] as Side);
    const runs = new Map<Side, Awaited<ReturnType<typeof runSide>>>();
    for (const side of order) runs.set(side, await runSide(side));
    const get = (side: Side) => {
      const run = runs.get(side);
      if (run === undefined) throw new Error(`round ${round}: no ${side} run`);
      return run;
    };
    const handler = get('handler');
    const noLedger = get('noLedger');
    const bareFetch = get('bareFetch');
    const bareHttp = get('bareHttp');
    if (Object.keys(noLedger.ledgerRequests).length > 0 || noLedger.breakerRequests > 0) {
      throw new Error(`round ${round}: the side without the ledger (and breaker) called DynamoDB`);
    }
    rounds.push({
      order,
      results: {
        handler: handler.result,
        noLedger: noLedger.result,
        bareFetch: bareFetch.result,
        bareHttp: bareHttp.result,
      },
      simulatorCpuMsPerRequest: {
        handler: handler.simulatorCpuMs,
        noLedger: noLedger.simulatorCpuMs,
        bareFetch: bareFetch.simulatorCpuMs,
        bareHttp: bareHttp.simulatorCpuMs,
      },
      ledgerRequests: handler.ledgerRequests,
      breakerRequests: handler.breakerRequests,
      ledgerItemBytes: handler.ledgerItemBytes,
    });
    const rate = (run: { result: LoadResult }): string => perSecond(run.result.measured).toFixed(0);
    progress(
      `  round ${round}: handler ${rate(handler)} msg/s (without the ledger ${rate(noLedger)}), bare fetch ${rate(bareFetch)} req/s, bare node:http ${rate(bareHttp)} req/s`,
    );
  }
  return {
    messages: options.messages,
    warmupMessages: options.warmupMessages,
    batchesInFlight: scenario.maxConcurrency,
    requestsInFlight,
    ledgerLatencyMs: options.ledger.latencyMs,
    rounds,
  };
};
