/**
 * A/B of the cold start of two builds of the measured handler, without the whole bench (which
 * takes minutes and measures every option): build the working tree before a change, build it
 * again after, compare.
 *
 *   npx tsx bench/cold-start-ab.ts build <name>          bundle the working tree as the stack does
 *   npx tsx bench/cold-start-ab.ts ab <a> <b> [samples]  fresh processes of each (default 21)
 *   npx tsx bench/cold-start-ab.ts prof <name> [runs]    `--cpu-prof` of the cold-start worker
 *
 * A side named `<name>+<node flag>+…` runs bundle `<name>` with those node flags. Each process is
 * the bench's cold-start worker against the bench's fakes and simulator, in the bench's
 * environment (bench/cold-start.ts), so the parts printed are the ones RESULTS.md breaks the
 * cold start into. The order within a round alternates (a b, then b a) so that whatever the
 * first process of a round pays, both pay. `npm run bench` empties the folder the bundles are
 * in, and neither may run beside another bench.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { buildWorkers, bundleHandler } from './build';
import { runColdStartHandler } from './cold-start';
import { startFakeDynamoDb } from './fake-dynamodb';
import { startFakeSecretsManager } from './fake-secrets-manager';
import { OUT_DIR } from './paths';
import type { ColdStartResult } from './protocol';
import { median } from './report';
import {
  BENCH_API_KEY,
  benchBodies,
  benchTenant,
  lambdaEnvironment,
  loadScenario,
} from './scenario';
import { startSimulatorProcess } from './simulator-process';

const bundlePath = (name: string): string =>
  join(OUT_DIR, 'bundles', name.split('+')[0] ?? name, 'index.mjs');
/** `<bundle>+<node flag>+…`: the same bundle run with extra node flags. */
const nodeArgsOf = (name: string): string[] => name.split('+').slice(1);

type Part = (r: ColdStartResult) => number;
const PARTS: readonly (readonly [string, Part])[] = [
  ['total', (r) => r.totalMs],
  ['import', (r) => r.importMs],
  ['invoke', (r) => r.invokeMs],
  ['to secret req', (r) => r.firstInvocation?.secretRead.startMs ?? Number.NaN],
  [
    'secret in flight',
    (r) =>
      (r.firstInvocation?.secretRead.endMs ?? Number.NaN) -
      (r.firstInvocation?.secretRead.startMs ?? Number.NaN),
  ],
  [
    'to platform req',
    (r) =>
      (r.firstInvocation?.platformRequest.startMs ?? Number.NaN) -
      (r.firstInvocation?.secretRead.endMs ?? Number.NaN),
  ],
  ['after platform', (r) => r.invokeMs - (r.firstInvocation?.platformRequest.endMs ?? Number.NaN)],
];

const withEnvironment = async (
  use: (
    run: (bundle: string, body: string, nodeArgs?: string[]) => Promise<ColdStartResult>,
  ) => Promise<void>,
): Promise<void> => {
  const scenario = loadScenario();
  const { config } = scenario;
  const workers = await buildWorkers();
  const secretsManager = await startFakeSecretsManager({
    secretId: config.apiKey.secretId,
    secretString: BENCH_API_KEY,
    region: config.apiKey.secretsRegion,
  });
  const ledger = await startFakeDynamoDb({ latencyMs: 0 });
  const simulator = await startSimulatorProcess(benchTenant(config));
  const endpoints = {
    simulatorUrl: simulator.baseUrl,
    secretsManagerUrl: secretsManager.url,
    dynamoDbUrl: ledger.url,
  };
  const env = lambdaEnvironment(scenario, endpoints);
  try {
    await use((bundle, body, nodeArgs = []) =>
      runColdStartHandler({ scenario, workers, endpoints }, bundle, body, env, nodeArgs),
    );
  } finally {
    await simulator.stop();
    await secretsManager.close();
    await ledger.close();
  }
};

const summary = (values: readonly number[]): string => {
  const sorted = [...values].sort((x, y) => x - y);
  return `${median(values).toFixed(1)} [${sorted[0]?.toFixed(1)}–${sorted.at(-1)?.toFixed(1)}]`;
};

const [command, ...args] = process.argv.slice(2);
const tag = Date.now().toString(36);

if (command === 'build') {
  const name = args[0] ?? 'ab';
  const bundle = await bundleHandler(loadScenario().action, { name });
  console.log(`${bundle.file} ${bundle.bytes} bytes`);
} else if (command === 'ab') {
  const [a = 'a', b = 'b', samplesArg = '21'] = args;
  const samples = Number(samplesArg);
  const names = [a, b] as const;
  if (!Number.isInteger(samples) || samples < 1) throw new Error(`samples: ${samplesArg}`);
  // Each side its own messages (an A/A run too): the ledger would skip a message it has seen.
  const bodies = names.map((_, side) => benchBodies(`ab-${tag}-${side}`, samples + 1));
  const results: ColdStartResult[][] = [[], []];
  await withEnvironment(async (run) => {
    for (const side of [0, 1] as const) {
      await run(
        bundlePath(names[side]),
        bodies[side]?.[samples] as string,
        nodeArgsOf(names[side]),
      );
    }
    for (let sample = 0; sample < samples; sample += 1) {
      const order = sample % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
      for (const side of order) {
        results[side]?.push(
          await run(
            bundlePath(names[side]),
            bodies[side]?.[sample] as string,
            nodeArgsOf(names[side]),
          ),
        );
      }
    }
  });
  const [ra = [], rb = []] = results;
  console.log(`${samples} processes each; median [min–max], ms`);
  console.log(['part'.padEnd(18), a.padEnd(24), b.padEnd(24), 'b − a (medians)'].join(''));
  for (const [label, part] of PARTS) {
    const va = ra.map(part);
    const vb = rb.map(part);
    const diff = median(vb) - median(va);
    console.log(
      [label.padEnd(18), summary(va).padEnd(24), summary(vb).padEnd(24), diff.toFixed(1)].join(''),
    );
  }
} else if (command === 'prof') {
  const [name = 'a', runsArg = '5'] = args;
  const dir = join(OUT_DIR, 'profiles', name);
  await mkdir(dir, { recursive: true });
  const bodies = benchBodies(`prof-${tag}-${name}`, Number(runsArg));
  await withEnvironment(async (run) => {
    for (const body of bodies) {
      await run(bundlePath(name), body, [
        '--cpu-prof',
        `--cpu-prof-dir=${dir}`,
        '--cpu-prof-interval=100',
      ]);
    }
  });
  console.log(dir);
} else {
  console.error('usage: cold-start-ab.ts build <name> | ab <a> <b> [samples] | prof <name> [runs]');
  process.exitCode = 2;
}
