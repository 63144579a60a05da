/**
 * `npm run bench`: throughput, bundle size, cold start, secret reads, memory and synth time,
 * each against a baseline measured in the same run. Prints one table on stdout (progress goes
 * to stderr) and writes bench/RESULTS.md. Exits 0 even when a target is missed (it is a
 * report); non-zero only when the bench itself failed. `--quick` runs a small version and does
 * not write RESULTS.md.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ACTION_NAMES } from '../lambdas/actions';
import { buildWorkers, bundleHandler, type HandlerBundle } from './build';
import { measureColdStart } from './cold-start';
import { COLD_START_OPTIONS } from './cold-start-options';
import { drainOptions, measureDrain } from './drain';
import { startFakeDynamoDb } from './fake-dynamodb';
import { startFakeSecretsManager } from './fake-secrets-manager';
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
import { BENCH_API_KEY, lambdaEnvironment, loadScenario } from './scenario';
import { measureSecretReads } from './secret-reads';
import { startSimulatorProcess } from './simulator-process';
import { measureSynth } from './synth';
import { measureThroughput } from './throughput';

const FULL = {
  messages: 10_000,
  warmupMessages: 1_000,
  rounds: 5,
  coldStartSamples: 21,
  secretInvocations: 100,
  secretWindowSeconds: 2 * 3600,
  drainMessages: 10_000,
  outageMinutes: 360,
  orderingHistories: 50,
  reconcileRows: 100_000,
};

const QUICK: typeof FULL = {
  ...FULL,
  messages: 1_000,
  warmupMessages: 200,
  rounds: 1,
  coldStartSamples: 3,
  drainMessages: 2_000,
  outageMinutes: 60,
  orderingHistories: 10,
  reconcileRows: 10_000,
};

/**
 * The fake DynamoDB's answer time: in-Region DynamoDB answers single-item writes in single-digit
 * milliseconds; 4 ms per request is a plain middle, not a measurement.
 */
const LEDGER_LATENCY_MS = 4;

const USAGE = `Usage: npm run bench [-- --quick]

Measures the speed and memory targets against baselines taken in the same run (cold start,
throughput, ledger cost, bundle size, secret reads, synth) and writes bench/RESULTS.md.

Options:
  --quick     fewer and shorter rounds: a smoke run, not numbers to report
  -h, --help  this help`;

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const main = async (): Promise<void> => {
  let values: { quick: boolean; help: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
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
  const ledger = await startFakeDynamoDb({ latencyMs: LEDGER_LATENCY_MS });
  // Cold start counts what the process does, not network time: no latency there, as for the
  // fake Secrets Manager and the simulator.
  const coldLedger = await startFakeDynamoDb({ latencyMs: 0 });
  const simulator = await startSimulatorProcess({
    apiKey: BENCH_API_KEY,
    platformCode: config.tenant.platformCode,
    companyCode: config.tenant.companyCode,
    environmentName: config.tenant.environmentName,
    secretsRegion: config.apiKey.secretsRegion,
  });
  let measurements: Omit<Measurements, 'totalSeconds'>;
  let reconcile: ReconcilePlanMeasurement[] = [];
  try {
    const endpoints = {
      simulatorUrl: simulator.baseUrl,
      secretsManagerUrl: secretsManager.url,
      dynamoDbUrl: ledger.url,
    };
    const lambdaEnv = lambdaEnvironment(scenario, endpoints);
    const coldEndpoints = { ...endpoints, dynamoDbUrl: coldLedger.url };

    progress(
      `cold start: ${settings.coldStartSamples} fresh processes of each kind (${COLD_START_OPTIONS.length} options included)…`,
    );
    const coldStart = await measureColdStart({
      scenario,
      workers,
      bundle: measuredBundle.file,
      bundleExternals: measuredBundle.externalPackages,
      endpoints: coldEndpoints,
      lambdaEnv: lambdaEnvironment(scenario, coldEndpoints),
      samples: settings.coldStartSamples,
      options: optionBundles.map(({ option, bundle }) => ({ option, bundle: bundle.file })),
    });

    progress(`throughput: ${settings.rounds} round(s) of ${settings.messages} messages per side…`);
    const throughput = await measureThroughput({
      scenario,
      simulator,
      workers,
      bundle: measuredBundle.file,
      noLedgerBundle: noLedgerBundle.file,
      ledger,
      lambdaEnv,
      messages: settings.messages,
      warmupMessages: settings.warmupMessages,
      rounds: settings.rounds,
      progress,
    });

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
      throughput,
      secretReads,
      drain,
      outage,
      ordering,
    };
  } finally {
    await simulator.stop();
    await secretsManager.close();
    await ledger.close();
    await coldLedger.close();
  }

  const complete: Measurements = {
    ...measurements,
    totalSeconds: (performance.now() - started) / 1000,
  };

  const rows = buildRows(complete);
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
