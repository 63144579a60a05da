/**
 * Throughput (and the handler side's peak RSS): the same messages through the bundled handler
 * and, as the baseline, the same platform requests through a bare keep-alive fetch loop.
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
import { OUT_DIR } from './paths';
import type { FetchLoadJob, HandlerLoadJob, LoadResult, MessagePhases } from './protocol';
import { benchBodies, recordRequests, type Scenario } from './scenario';
import type { SimulatorProcess } from './simulator-process';

export interface ThroughputOptions {
  readonly scenario: Scenario;
  readonly simulator: SimulatorProcess;
  readonly workers: WorkerScripts;
  readonly bundle: string;
  readonly lambdaEnv: Readonly<Record<string, string>>;
  readonly messages: number;
  readonly warmupMessages: number;
  readonly rounds: number;
  readonly progress: (line: string) => void;
}

export interface ThroughputRound {
  readonly handler: LoadResult;
  readonly baseline: LoadResult;
  /** Simulator CPU time per request during each side's run (warm-up included), ms. */
  readonly simulatorCpuMsPerRequest: {
    readonly handler: number | undefined;
    readonly baseline: number | undefined;
  };
}

export interface ThroughputResult {
  readonly messages: number;
  readonly warmupMessages: number;
  readonly batchesInFlight: number;
  readonly requestsInFlight: number;
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
  const fetchJob: FetchLoadJob = { requestsFile, concurrency: requestsInFlight };
  const total = options.warmupMessages + options.messages;
  // The bare loop needs no AWS settings; PATH only, so neither child inherits the bench's env.
  const fetchEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  // Both sides get the heap budget of the function, so neither can trade memory for speed.
  const heapArgs = lambdaHeapArgs(scenario.lambda.memoryMiB);

  /** Runs one side against a freshly reset simulator; also returns its CPU ms per request. */
  const runSide = async (run: () => Promise<LoadResult>, side: string) => {
    await simulator.reset();
    const before = await simulator.cpuMs();
    const result = await run();
    const after = await simulator.cpuMs();
    await checkApplied(simulator, total, `${side} run`);
    const failed = result.warmup.failures + result.measured.failures;
    if (failed > 0) throw new Error(`${side} run: ${failed} messages failed`);
    const simulatorCpuMs =
      before === undefined || after === undefined ? undefined : (after - before) / total;
    return { result, simulatorCpuMs };
  };

  const rounds: ThroughputRound[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    // Alternating sides spreads any drift of the machine over both.
    const { result: baseline, simulatorCpuMs: baselineSimCpu } = await runSide(
      () => runWorker<LoadResult>(workers.fetchLoad, fetchJob, fetchEnv, heapArgs),
      'baseline',
    );
    const { result: handler, simulatorCpuMs: handlerSimCpu } = await runSide(
      () => runWorker<LoadResult>(workers.handlerLoad, handlerJob, options.lambdaEnv, heapArgs),
      'handler',
    );
    rounds.push({
      handler,
      baseline,
      simulatorCpuMsPerRequest: { handler: handlerSimCpu, baseline: baselineSimCpu },
    });
    progress(
      `  round ${round}: handler ${perSecond(handler.measured).toFixed(0)} msg/s, bare fetch ${perSecond(baseline.measured).toFixed(0)} req/s`,
    );
  }
  return {
    messages: options.messages,
    warmupMessages: options.warmupMessages,
    batchesInFlight: scenario.maxConcurrency,
    requestsInFlight,
    rounds,
  };
};
