/**
 * Cold start: fresh Node processes load the bundled handler and complete its first
 * invocation, against fresh processes that only load `@aws-sdk/client-secrets-manager`. The
 * kinds alternate so that drift of the machine hits them alike; one untimed run of each comes
 * first to warm the file cache.
 */
import type { WorkerScripts } from './build';
import { lambdaHeapArgs, runWorker } from './child';
import type { ColdStartOption } from './cold-start-options';
import type { ColdStartJob, ColdStartResult } from './protocol';
import { benchBodies, type Endpoints, type Scenario } from './scenario';

export interface ColdStartOptions {
  readonly scenario: Scenario;
  readonly workers: WorkerScripts;
  readonly bundle: string;
  readonly endpoints: Endpoints;
  readonly lambdaEnv: Readonly<Record<string, string>>;
  readonly samples: number;
  /** Other bundles / environments measured the same way, in the same rounds. */
  readonly options?: readonly { readonly option: ColdStartOption; readonly bundle: string }[];
}

/** One option's fresh processes, each an import + first invocation like the handler's. */
export interface OptionSamples {
  readonly option: ColdStartOption;
  readonly samples: readonly ColdStartResult[];
}

export interface ColdStartSamples {
  readonly handler: readonly ColdStartResult[];
  /** The baseline: `@aws-sdk/client-secrets-manager` alone. */
  readonly sdk: readonly ColdStartResult[];
  readonly options: readonly OptionSamples[];
}

/**
 * Expected per first invocation: one GetSecretValue, the circuit breaker's read of its shared
 * state, the ledger's claim and commit (DynamoDB), one platform request.
 */
const FIRST_INVOCATION_REQUESTS = 5;

/** Where a handler process runs: the bench's workers, scenario, fakes and environment. */
export interface ColdStartBed {
  readonly scenario: Scenario;
  readonly workers: WorkerScripts;
  readonly endpoints: Endpoints;
}

/**
 * One fresh process: the bundle's import and its first invocation of `body`, refused unless it
 * applied its record with the five requests expected.
 */
export const runColdStartHandler = async (
  { scenario, workers, endpoints }: ColdStartBed,
  bundle: string,
  body: string,
  env: Readonly<Record<string, string>>,
  nodeArgs: readonly string[] = [],
): Promise<ColdStartResult> => {
  const job: ColdStartJob = {
    bundle,
    body,
    lambda: scenario.lambda,
    secretsManagerUrl: endpoints.secretsManagerUrl,
    platformUrl: endpoints.simulatorUrl,
  };
  const result = await runWorker<ColdStartResult>(workers.coldStartHandler, job, env, [
    ...lambdaHeapArgs(scenario.lambda.memoryMiB),
    ...nodeArgs,
  ]);
  if (result.failures > 0) throw new Error(`${bundle}: the first invocation failed its record`);
  const requests = result.firstInvocation?.requests;
  if (requests !== FIRST_INVOCATION_REQUESTS) {
    throw new Error(
      `${bundle}: the first invocation made ${requests} HTTP requests, expected ${FIRST_INVOCATION_REQUESTS}`,
    );
  }
  return result;
};

export const measureColdStart = async (options: ColdStartOptions): Promise<ColdStartSamples> => {
  const { scenario, lambdaEnv } = options;
  const bodies = benchBodies('cold', options.samples + 1);
  const heapArgs = lambdaHeapArgs(scenario.lambda.memoryMiB);
  const handlerRun = (
    body: string,
    bundle = options.bundle,
    env: Readonly<Record<string, string>> = lambdaEnv,
  ): Promise<ColdStartResult> => runColdStartHandler(options, bundle, body, env);
  // Same environment for all kinds: NODE_OPTIONS (source maps) applies to each process alike.
  const sdkRun = (): Promise<ColdStartResult> =>
    runWorker<ColdStartResult>(options.workers.coldStartSdk, {}, lambdaEnv, heapArgs);

  // Each option its own messages: the ledger would skip a message it has seen as a duplicate.
  const others = (options.options ?? []).map(({ option, bundle }) => {
    const optionBodies = benchBodies(option.name, options.samples + 1);
    const env = withChanges(lambdaEnv, option.env);
    return {
      option,
      run: (sample: number) => handlerRun(optionBodies[sample] as string, bundle, env),
      samples: [] as ColdStartResult[],
    };
  });

  await handlerRun(bodies[options.samples] as string);
  await sdkRun();
  for (const other of others) await other.run(options.samples);
  const handler: ColdStartResult[] = [];
  const sdk: ColdStartResult[] = [];
  for (let sample = 0; sample < options.samples; sample += 1) {
    sdk.push(await sdkRun());
    handler.push(await handlerRun(bodies[sample] as string));
    for (const other of others) other.samples.push(await other.run(sample));
  }
  return {
    handler,
    sdk,
    options: others.map(({ option, samples }) => ({ option, samples })),
  };
};

const withChanges = (
  env: Readonly<Record<string, string>>,
  changes: Readonly<Record<string, string | undefined>> = {},
): Record<string, string> => {
  const changed: Record<string, string> = { ...env };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete changed[name];
    else changed[name] = value;
  }
  return changed;
};
