/**
 * Billed duration of one batch: one container (a fresh process) of the bundled handler takes
 * batches of `batchSize` one after another, as Lambda runs one batch per container at a time,
 * against the fakes and the simulator answering with the modelled latencies. Lambda bills each
 * invocation from the call to the answer, rounded up to the millisecond. The deployed function
 * runs beside the same function with its ledger's items in memory (the breaker's shared state
 * kept, so the ledger's table alone differs), alternating which goes first in each round.
 *
 * The same runs give what the cost is computed from: DynamoDB requests and capacity units,
 * Secret Manager calls, the bytes the handler logs, the init (import) time and peak memory.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chunk } from './batching';
import type { WorkerScripts } from './build';
import { lambdaHeapArgs, runWorker } from './child';
import { type CpuIsolation, describeIsolation, withLoadOffMeasuredCpu } from './cpu-isolation';
import type { CapacityUnits, FakeDynamoDb } from './fake-dynamodb';
import type { FakeSecretsManager } from './fake-secrets-manager';
import { describeLatency, type ModelledLatency } from './modelled-latency';
import { OUT_DIR } from './paths';
import type { ContainerJob, ContainerResult, InvocationResult } from './protocol';
import { markdownTable, median, type Row, ratio } from './report';
import { benchBodies, type Scenario } from './scenario';
import type { SimulatorProcess } from './simulator-process';

export type BilledSide = 'ledger' | 'noLedger';

export const BILLED_SIDES: readonly BilledSide[] = ['ledger', 'noLedger'];

export interface BilledDurationOptions {
  readonly scenario: Scenario;
  readonly workers: WorkerScripts;
  /** The deployed bundle and the same function without the ledger. */
  readonly bundles: { readonly [S in BilledSide]: string };
  /** The function's environment (EMF metrics on, as deployed). */
  readonly lambdaEnv: Readonly<Record<string, string>>;
  readonly simulator: SimulatorProcess;
  /** Answering after `latency.dynamoDbMs`. */
  readonly dynamoDb: FakeDynamoDb;
  /** Answering after `latency.secretsManagerMs`. */
  readonly secretsManager: FakeSecretsManager;
  readonly latency: ModelledLatency;
  readonly rounds: number;
  /** Invocations per container: the first is its cold one, the rest are warm. */
  readonly invocations: number;
  /** Given: each container alone on one CPU, the fakes and the simulator on the others. */
  readonly isolation?: CpuIsolation;
  readonly progress: (line: string) => void;
}

/** One container's run and what the fakes counted during it. */
export interface ContainerRun {
  readonly result: ContainerResult;
  /** DynamoDB requests for the ledger's items, by operation. */
  readonly ledgerRequests: Readonly<Record<string, number>>;
  readonly ledgerUnits: CapacityUnits;
  readonly ledgerItemBytes: number;
  /** DynamoDB requests for the breaker's shared state. */
  readonly breakerRequests: number;
  readonly secretReads: number;
}

export interface BilledRound {
  readonly order: readonly BilledSide[];
  readonly runs: { readonly [S in BilledSide]: ContainerRun };
}

export interface BilledDurationResult {
  readonly latency: ModelledLatency;
  readonly batchSize: number;
  readonly invocations: number;
  readonly isolation: CpuIsolation | undefined;
  readonly rounds: readonly BilledRound[];
}

/** Lambda bills an invocation in whole milliseconds, rounded up. */
export const billedMs = (invocation: InvocationResult): number => Math.ceil(invocation.ms);

/** The warm invocations of a container: all but its first. */
export const warm = (run: ContainerRun): readonly InvocationResult[] =>
  run.result.invocations.slice(1);

/** Median billed duration of a container's warm invocations, ms. */
export const warmBilledMs = (run: ContainerRun): number => median(warm(run).map(billedMs));

export const messagesOf = (run: ContainerRun): number =>
  run.result.invocations.reduce((sum, invocation) => sum + invocation.records, 0);

/** Median over the rounds of the per-round ratio of the warm medians, ledger ÷ no ledger. */
export const ledgerRatio = (result: BilledDurationResult): number =>
  median(result.rounds.map((r) => warmBilledMs(r.runs.ledger) / warmBilledMs(r.runs.noLedger)));

/** Median over the rounds of `measure` of one side's container. */
export const sideMedian = (
  result: BilledDurationResult,
  side: BilledSide,
  measure: (run: ContainerRun) => number,
): number => median(result.rounds.map((r) => measure(r.runs[side])));

export const measureBilledDuration = async (
  options: BilledDurationOptions,
): Promise<BilledDurationResult> => {
  const { scenario, simulator, dynamoDb, secretsManager, progress } = options;
  const dir = join(OUT_DIR, 'billed-duration');
  await mkdir(dir, { recursive: true });
  const heapArgs = lambdaHeapArgs(scenario.lambda.memoryMiB);
  const messages = options.invocations * scenario.batchSize;

  const runSide = async (side: BilledSide, round: number): Promise<ContainerRun> => {
    const batchesFile = join(dir, `${side}-${round}.json`);
    const bodies = benchBodies(`billed-${side}-${round}`, messages);
    await writeFile(batchesFile, JSON.stringify(chunk(bodies, scenario.batchSize)));
    // A reset clears the simulator's faults, its modelled latency among them.
    await simulator.reset();
    await simulator.setFaults({ latencyMs: options.latency.platformMs });
    dynamoDb.reset();
    secretsManager.resetCalls();
    const job: ContainerJob = {
      bundle: options.bundles[side],
      batchesFile,
      lambda: scenario.lambda,
    };
    const result = await runWorker<ContainerResult>(
      options.workers.container,
      job,
      options.lambdaEnv,
      heapArgs,
      options.isolation,
    );
    const failed = result.invocations.reduce((sum, i) => sum + i.failures, 0);
    if (failed > 0) throw new Error(`billed duration, ${side}: ${failed} records failed`);
    const stats = await simulator.stats();
    if (stats.requests !== messages) {
      throw new Error(
        `billed duration, ${side}: the simulator saw ${stats.requests} requests for ${messages} messages`,
      );
    }
    if (side === 'noLedger' && Object.keys(dynamoDb.requests).length > 0) {
      throw new Error('billed duration: the function without the ledger called the ledger');
    }
    return {
      result,
      ledgerRequests: { ...dynamoDb.requests },
      ledgerUnits: dynamoDb.ledgerUnits,
      ledgerItemBytes: dynamoDb.largestItemBytes,
      breakerRequests: dynamoDb.breakerRequests,
      secretReads: secretsManager.calls,
    };
  };

  const rounds: BilledRound[] = [];
  const measureRounds = async () => {
    for (let round = 1; round <= options.rounds; round += 1) {
      // Each round starts with the other side, so drift of the machine hits both alike.
      const order = round % 2 === 1 ? BILLED_SIDES : [...BILLED_SIDES].reverse();
      const runs: Partial<Record<BilledSide, ContainerRun>> = {};
      for (const side of order) runs[side] = await runSide(side, round);
      const { ledger, noLedger } = runs;
      if (ledger === undefined || noLedger === undefined) throw new Error('a side did not run');
      rounds.push({ order, runs: { ledger, noLedger } });
      progress(
        `  round ${round}: a warm batch of ${scenario.batchSize} bills ${warmBilledMs(ledger)} ms with the ledger, ${warmBilledMs(noLedger)} ms without`,
      );
    }
  };
  try {
    await withLoadOffMeasuredCpu(options.isolation, [process.pid, simulator.pid], measureRounds);
  } finally {
    await simulator.setFaults({});
  }
  return {
    latency: options.latency,
    batchSize: scenario.batchSize,
    invocations: options.invocations,
    isolation: options.isolation,
    rounds,
  };
};

/** Lambda gives a function one vCPU at 1 769 MB and a proportional share below it. */
const FULL_VCPU_MIB = 1769;

/** How much longer CPU work takes at the vCPU share of `memoryMiB` than on a whole vCPU. */
export const cpuStretch = (memoryMiB: number): number => Math.max(1, FULL_VCPU_MIB / memoryMiB);

/**
 * An invocation's billed time if its CPU work ran at the share of a vCPU Lambda gives the
 * function's memory (this machine's core standing in for a vCPU): a model, not a measurement.
 */
export const stretchedBilledMs = (invocation: InvocationResult, memoryMiB: number): number =>
  Math.ceil(invocation.ms + invocation.cpuMs * (cpuStretch(memoryMiB) - 1));

/** Median stretched billed duration of a container's warm invocations, ms (a model). */
export const warmStretchedMs = (run: ContainerRun, memoryMiB: number): number =>
  median(warm(run).map((i) => stretchedBilledMs(i, memoryMiB)));

/** Median CPU time of a container's warm invocations, ms. */
export const warmCpuMs = (run: ContainerRun): number => median(warm(run).map((i) => i.cpuMs));

export const BILLED_RATIO_TARGET = 1.25;
export const LEDGER_REQUESTS_TARGET = 2;

const ledgerRequestsPerMessage = (run: ContainerRun): number =>
  Object.values(run.ledgerRequests).reduce((sum, n) => sum + n, 0) / messagesOf(run);

export const billedDurationRows = (
  result: BilledDurationResult,
  memoryMiB: number,
  shared?: BilledDurationResult,
): Row[] => {
  const ledgerMs = sideMedian(result, 'ledger', warmBilledMs);
  const noLedgerMs = sideMedian(result, 'noLedger', warmBilledMs);
  const billedRatio = ledgerRatio(result);
  const stretched = (side: BilledSide) =>
    sideMedian(result, side, (run) => warmStretchedMs(run, memoryMiB));
  const stretchedRatio = median(
    result.rounds.map(
      (r) =>
        warmStretchedMs(r.runs.ledger, memoryMiB) / warmStretchedMs(r.runs.noLedger, memoryMiB),
    ),
  );
  const requests = sideMedian(result, 'ledger', ledgerRequestsPerMessage);
  const rssMiB = Math.max(...result.rounds.map((r) => r.runs.ledger.result.maxRssKiB)) / 1024;
  return [
    {
      metric: `billed duration of a warm batch of ${result.batchSize} (${describeLatency(result.latency)})`,
      value: `${ledgerMs.toFixed(0)} ms`,
      baseline: `${noLedgerMs.toFixed(0)} ms (same function, ledger in memory)`,
      ratio: ratio(billedRatio),
      target: `ratio ≤ ${BILLED_RATIO_TARGET.toFixed(2)}`,
      verdict: billedRatio <= BILLED_RATIO_TARGET ? 'PASS' : 'MISS',
    },
    ...(shared === undefined ? [] : [sharedBilledRow(shared)]),
    {
      metric: `same, CPU time stretched to ${memoryMiB} MiB's vCPU share (modelled)`,
      value: `${stretched('ledger').toFixed(0)} ms`,
      baseline: `${stretched('noLedger').toFixed(0)} ms (ledger in memory)`,
      ratio: ratio(stretchedRatio),
      target: '-',
      verdict: 'info',
    },
    {
      metric: 'DynamoDB ledger requests per message',
      value: requests.toFixed(2),
      baseline: '-',
      ratio: '-',
      target: `≤ ${LEDGER_REQUESTS_TARGET}`,
      verdict: requests <= LEDGER_REQUESTS_TARGET ? 'PASS' : 'MISS',
    },
    {
      metric: `peak RSS of a container (${result.invocations} invocations)`,
      value: `${rssMiB.toFixed(1)} MiB`,
      baseline: '-',
      ratio: '-',
      target: `< ${memoryMiB} MiB`,
      verdict: rssMiB < memoryMiB ? 'PASS' : 'MISS',
    },
  ];
};

const SIDE_LABELS: { readonly [S in BilledSide]: string } = {
  ledger: 'with the ledger',
  noLedger: 'without',
};

/**
 * The same measurement with the containers sharing the CPUs with the fakes and the simulator:
 * shown beside the isolated one, so every run says how much the isolation moves the ratio.
 */
const sharedBilledRow = (shared: BilledDurationResult): Row => ({
  metric: `same, each container sharing the CPUs with the fakes and the simulator (${shared.rounds.length} rounds)`,
  value: `${sideMedian(shared, 'ledger', warmBilledMs).toFixed(0)} ms`,
  baseline: `${sideMedian(shared, 'noLedger', warmBilledMs).toFixed(0)} ms (ledger in memory)`,
  ratio: ratio(ledgerRatio(shared)),
  target: '-',
  verdict: 'info',
});

/** A table of one row per round of `result`, numbered in its first column. */
const perRoundTable = (
  result: BilledDurationResult,
  headers: readonly string[],
  cells: (round: BilledRound) => readonly string[],
): string =>
  markdownTable(
    ['round', ...headers],
    result.rounds.map((round, i) => [String(i + 1), ...cells(round)]),
  );

/** One cell of both sides of a round, "ledger / without". */
const bothSides = (round: BilledRound, cell: (run: ContainerRun) => string): string =>
  `${cell(round.runs.ledger)} / ${cell(round.runs.noLedger)}`;

const roundsTable = (result: BilledDurationResult): string =>
  perRoundTable(
    result,
    [
      'order',
      'warm billed ms, ledger',
      'without',
      'ratio',
      'cold invocation ms, ledger / without',
      'import ms, ledger / without',
      'CPU ms per warm invocation, ledger / without',
    ],
    (round) => {
      const { ledger, noLedger } = round.runs;
      return [
        round.order.map((side) => SIDE_LABELS[side]).join(', '),
        String(warmBilledMs(ledger)),
        String(warmBilledMs(noLedger)),
        ratio(warmBilledMs(ledger) / warmBilledMs(noLedger)),
        bothSides(round, (run) => (run.result.invocations[0]?.ms ?? Number.NaN).toFixed(1)),
        bothSides(round, (run) => run.result.importMs.toFixed(1)),
        bothSides(round, (run) => warmCpuMs(run).toFixed(1)),
      ];
    },
  );

export const billedDurationMarkdown = (
  result: BilledDurationResult,
  shared?: BilledDurationResult,
): string[] => [
  '### Billed duration',
  '',
  `Each round runs one container of each side, ${result.invocations} invocations of ${result.batchSize} messages one after another (the first is its cold one); the sides alternate which goes first. Modelled latencies: ${describeLatency(result.latency)}. Billed: each invocation's time rounded up to the millisecond; the summary takes each container's median over its warm invocations, the ratio is the median of the rounds' ratios. CPUs: ${describeIsolation(result.isolation)}.`,
  '',
  roundsTable(result),
  '',
  ...(shared === undefined
    ? []
    : [
        `The same with each container sharing the CPUs with the fakes and the simulator (ratio ${ratio(ledgerRatio(shared))}, the "same, … sharing" row):`,
        '',
        roundsTable(shared),
        '',
      ]),
  perRoundTable(
    result,
    [
      'ledger requests per message',
      'write units per message',
      'largest ledger item B',
      'breaker state requests',
      'GetSecretValue calls',
      'peak RSS MiB, ledger / without',
    ],
    (round) => {
      const { ledger } = round.runs;
      const requests = Object.entries(ledger.ledgerRequests)
        .map(([operation, n]) => `${operation} ${n}`)
        .join(', ');
      return [
        `${ledgerRequestsPerMessage(ledger).toFixed(2)} (${requests})`,
        (ledger.ledgerUnits.write / messagesOf(ledger)).toFixed(2),
        String(ledger.ledgerItemBytes),
        bothSides(round, (run) => String(run.breakerRequests)),
        bothSides(round, (run) => String(run.secretReads)),
        bothSides(round, (run) => (run.result.maxRssKiB / 1024).toFixed(1)),
      ];
    },
  ),
  '',
];
