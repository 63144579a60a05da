/**
 * `npm run bench`: billed duration, cost, log bytes, end-to-end latency, bundle size, cold
 * start, secret reads, memory and synth time, each against a baseline measured in the same run. Prints one table on stdout (progress goes
 * to stderr) and writes bench/RESULTS.md. Exits 0 even when a target is missed (it is a
 * report); non-zero only when the bench itself failed. `--quick` runs a small version and does
 * not write RESULTS.md.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ACTION_NAMES } from '../lambdas/actions';
import { type BilledDurationResult, measureBilledDuration } from './billed-duration';
import { buildWorkers, bundleHandler, type HandlerBundle } from './build';
import { measureColdStart } from './cold-start';
import { COLD_START_OPTIONS } from './cold-start-options';
import { estimateCost, MESSAGES_PER_SECOND } from './cost';
import { cpuIsolation } from './cpu-isolation';
import { drainOptions, measureDrain } from './drain';
import { meanBatchOf, measureEndToEnd } from './end-to-end-latency';
import { startFakeDynamoDb } from './fake-dynamodb';
import { startFakeSecretsManager } from './fake-secrets-manager';
import { logBytesOf } from './log-bytes';
import { DEFAULT_LATENCY, type ModelledLatency } from './modelled-latency';
import { measureOrdering } from './ordering';
import { measureOutage } from './outage';
import { OUT_DIR, PROJECT_ROOT, RESULTS_FILE } from './paths';
import {
  measureReconcilePlan,
  type ReconcilePlanMeasurement,
  reconcilePlanText,
} from './reconcile-plan';
import { describeMachine, textTable } from './report';
import {
  buildRows,
  coldStartOptionsText,
  largestModules,
  type Measurements,
  resultsMarkdown,
} from './results';
import { BENCH_API_KEY, benchTenant, lambdaEnvironment, loadScenario } from './scenario';
import { measureScim, type ScimBenchResult, scimRows } from './scim';
import { measureSecretReads } from './secret-reads';
import { startSimulatorProcess } from './simulator-process';
import { measureSynth } from './synth';

const FULL = {
  billedRounds: 5,
  /** The same without CPU isolation, to show what the isolation moves. */
  sharedBilledRounds: 3,
  // A warm container: the JIT takes ~100 batches to settle (the first cost twice the CPU).
  billedInvocations: 121,
  endToEndMessages: 300,
  coldStartSamples: 21,
  secretInvocations: 100,
  secretWindowSeconds: 2 * 3600,
  drainMessages: 10_000,
  outageMinutes: 360,
  orderingHistories: 50,
  reconcileRows: 100_000,
  scimUsers: 200,
};

const QUICK: typeof FULL = {
  ...FULL,
  billedRounds: 1,
  sharedBilledRounds: 1,
  billedInvocations: 11,
  endToEndMessages: 40,
  coldStartSamples: 3,
  drainMessages: 2_000,
  outageMinutes: 60,
  orderingHistories: 10,
  reconcileRows: 10_000,
  scimUsers: 20,
};

const USAGE = `Usage: npm run bench [-- --quick] [-- --dynamodb-ms N --secrets-manager-ms N --platform-ms N]

Measures the speed, cost and memory targets against baselines taken in the same run (billed
duration with and without the ledger, cost per million messages, log bytes, end-to-end latency
on moto, cold start, bundle size, secret reads, synth) and writes bench/RESULTS.md.

Options:
  --quick                  fewer and shorter rounds: a smoke run, not numbers to report
  --dynamodb-ms <ms>       modelled DynamoDB latency per request (default ${DEFAULT_LATENCY.dynamoDbMs})
  --secrets-manager-ms <ms>  modelled GetSecretValue latency (default ${DEFAULT_LATENCY.secretsManagerMs})
  --platform-ms <ms>       modelled platform latency per request (default ${DEFAULT_LATENCY.platformMs})
  -h, --help               this help`;

const LATENCY_OPTIONS = {
  'dynamodb-ms': 'dynamoDbMs',
  'secrets-manager-ms': 'secretsManagerMs',
  'platform-ms': 'platformMs',
} as const;

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const main = async (): Promise<void> => {
  let values: { quick: boolean; help: boolean } & { [K in keyof typeof LATENCY_OPTIONS]?: string };
  let latency: ModelledLatency = DEFAULT_LATENCY;
  try {
    ({ values } = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        'dynamodb-ms': { type: 'string' },
        'secrets-manager-ms': { type: 'string' },
        'platform-ms': { type: 'string' },
      },
    }));
    for (const [option, field] of Object.entries(LATENCY_OPTIONS)) {
      const given = values[option as keyof typeof LATENCY_OPTIONS];
      if (given === undefined) continue;
      const value = Number(given);
      if (!Number.isFinite(value) || value < 0) {
        throw new Error(`--${option} must be a number of milliseconds, got "${given}"`);
      }
      latency = { ...latency, [field]: value };
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const settings = values.quick ? QUICK : FULL;
  const started = performance.now();
  const machine = describeMachine();
  const scenario = loadScenario();
  const { config } = scenario;

  await rm(OUT_DIR, { recursive: true, force: true });
  await mkdir(OUT_DIR, { recursive: true });

  progress('bundling the handlers as the stack does…');
  const bundles: HandlerBundle[] = [];
  for (const action of ACTION_NAMES) bundles.push(await bundleHandler(action));
  const measuredBundle = bundles.find((b) => b.action === scenario.action);
  if (!measuredBundle) throw new Error(`no bundle for ${scenario.action}`);
  const noLedgerBundle = await bundleHandler(scenario.action, {
    name: `${scenario.action}-without-ledger`,
    entry: join(PROJECT_ROOT, 'bench', 'handler-without-ledger.ts'),
  });
  const optionBundles = [];
  for (const option of COLD_START_OPTIONS) {
    optionBundles.push({ option, bundle: await bundleHandler(scenario.action, option) });
  }
  const workers = await buildWorkers();
  // Right after bundling, so the comparison with the staged assets sees the same sources.
  progress('cdk synth…');
  const synth = await measureSynth(scenario, bundles);

  const secretsManager = await startFakeSecretsManager({
    secretId: config.apiKey.secretId,
    secretString: BENCH_API_KEY,
    region: config.apiKey.secretsRegion,
  });
  // Cold start counts what the process does, not network time: no latency there.
  const coldLedger = await startFakeDynamoDb({ latencyMs: 0 });
  const billedLedger = await startFakeDynamoDb({ latencyMs: latency.dynamoDbMs });
  const billedSecretsManager = await startFakeSecretsManager({
    secretId: config.apiKey.secretId,
    secretString: BENCH_API_KEY,
    region: config.apiKey.secretsRegion,
    latencyMs: latency.secretsManagerMs,
  });
  const simulator = await startSimulatorProcess(benchTenant(config));
  let measurements: Omit<Measurements, 'totalSeconds'>;
  let reconcile: ReconcilePlanMeasurement[] = [];
  let scim: ScimBenchResult | undefined;
  try {
    const coldEndpoints = {
      simulatorUrl: simulator.baseUrl,
      secretsManagerUrl: secretsManager.url,
      dynamoDbUrl: coldLedger.url,
    };
    const billedEndpoints = {
      simulatorUrl: simulator.baseUrl,
      secretsManagerUrl: billedSecretsManager.url,
      dynamoDbUrl: billedLedger.url,
    };

    progress(
      `cold start: ${settings.coldStartSamples} fresh processes of each kind (${COLD_START_OPTIONS.length} options included)…`,
    );
    const coldStart = await measureColdStart({
      scenario,
      workers,
      bundle: measuredBundle.file,
      endpoints: coldEndpoints,
      lambdaEnv: lambdaEnvironment(scenario, coldEndpoints),
      samples: settings.coldStartSamples,
      options: optionBundles.map(({ option, bundle }) => ({ option, bundle: bundle.file })),
    });

    const isolation = cpuIsolation();
    const billedOptions = {
      scenario,
      workers,
      bundles: { ledger: measuredBundle.file, noLedger: noLedgerBundle.file },
      lambdaEnv: lambdaEnvironment(scenario, billedEndpoints, { metrics: true }),
      simulator,
      dynamoDb: billedLedger,
      secretsManager: billedSecretsManager,
      latency,
      invocations: settings.billedInvocations,
      progress,
    };
    progress(
      `billed duration: ${settings.billedRounds} round(s) of a container with and without the ledger, ${settings.billedInvocations} batches each${isolation ? `, on CPU ${isolation.measured} alone` : ''}…`,
    );
    const billed = await measureBilledDuration({
      ...billedOptions,
      rounds: settings.billedRounds,
      ...(isolation ? { isolation } : {}),
    });
    let billedShared: BilledDurationResult | undefined;
    if (isolation !== undefined) {
      progress(`billed duration: ${settings.sharedBilledRounds} round(s) sharing the CPUs…`);
      billedShared = await measureBilledDuration({
        ...billedOptions,
        rounds: settings.sharedBilledRounds,
      });
    }

    progress('end to end on moto: SendMessage to platform request…');
    const endToEnd = await measureEndToEnd({
      scenario,
      workers,
      bundle: measuredBundle.file,
      simulator,
      latency,
      messages: settings.endToEndMessages,
      perSecond: MESSAGES_PER_SECOND,
      progress,
    });
    const logBytes = logBytesOf(billed);
    const cost = estimateCost({ scenario, billed, logBytes, meanBatch: meanBatchOf(endToEnd) });

    progress('secret reads over a simulated window…');
    await simulator.reset();
    const secretReads = await measureSecretReads({
      scenario,
      simulatorUrl: simulator.baseUrl,
      secretsManager,
      invocations: settings.secretInvocations,
      windowSeconds: settings.secretWindowSeconds,
    });
    progress(`drain: a backlog of ${settings.drainMessages} messages under the rate ceiling…`);
    await simulator.reset();
    const drain = await measureDrain(drainOptions(scenario, simulator, settings.drainMessages));
    progress(`outage: ${settings.outageMinutes} min of HTTP 503 in virtual time…`);
    const outage = await measureOutage(settings.outageMinutes * 60_000);
    progress(
      `ordering: ${settings.orderingHistories} move-chain histories, in order and shuffled…`,
    );
    const ordering = await measureOrdering({ histories: settings.orderingHistories });
    progress(`reconcile: plan time for ${settings.reconcileRows} rows of records and of users…`);
    reconcile = await measureReconcilePlan(settings.reconcileRows);
    progress(`scim: ${settings.scimUsers} creates and deactivations at the modelled latencies…`);
    scim = await measureScim(latency, settings.scimUsers);
    measurements = {
      machine,
      scenario,
      bundles,
      optionBundles: optionBundles.map(({ option, bundle }) => ({
        name: option.name,
        bytes: bundle.bytes,
      })),
      synth,
      coldStart,
      billed,
      ...(billedShared ? { billedShared } : {}),
      logBytes,
      cost,
      endToEnd,
      secretReads,
      drain,
      outage,
      ordering,
    };
  } finally {
    await simulator.stop();
    await secretsManager.close();
    await coldLedger.close();
    await billedLedger.close();
    await billedSecretsManager.close();
  }

  const complete: Measurements = {
    ...measurements,
    totalSeconds: (performance.now() - started) / 1000,
  };

  const rows = [
    ...buildRows(complete),
    ...(scim === undefined ? [] : scimRows(scim, complete.cost.oursUsd)),
  ];
  console.log(textTable(rows));
  console.log('');
  console.log(coldStartOptionsText(complete));
  console.log('');
  console.log(largestModules(measuredBundle));
  console.log('');
  console.log(reconcilePlanText(reconcile));
  const different = synth.assets.filter((a) => !a.identical).map((a) => a.action);
  if (different.length > 0) {
    console.log(
      `\nWARNING: bundles differ from the cdk synth assets: ${different.join(', ')} (did a source change between the two builds?)`,
    );
  }
  if (values.quick) {
    progress('--quick: RESULTS.md not written');
  } else {
    await writeFile(
      RESULTS_FILE,
      `${resultsMarkdown(complete, rows)}\n## Reconcile plan time\n\n\`\`\`text\n${reconcilePlanText(reconcile)}\n\`\`\`\n`,
    );
    progress(`wrote ${RESULTS_FILE} (${complete.totalSeconds.toFixed(0)} s)`);
  }
};

main().catch((error: unknown) => {
  console.error('bench failed:', error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
