/**
 * Cold start: fresh Node processes load the bundled handler and complete its first
 * invocation, against fresh processes that only load `@aws-sdk/client-secrets-manager`. The
 * two kinds alternate so that drift of the machine hits both alike; one untimed run of each
 * comes first to warm the file cache.
 */
import type { WorkerScripts } from './build';
import { lambdaHeapArgs, runWorker } from './child';
import type { ColdStartJob, ColdStartResult } from './protocol';
import { benchBodies, type Scenario } from './scenario';

export interface ColdStartOptions {
  readonly scenario: Scenario;
  readonly workers: WorkerScripts;
  readonly bundle: string;
  readonly lambdaEnv: Readonly<Record<string, string>>;
  readonly samples: number;
}

export interface ColdStartSamples {
  readonly handler: readonly ColdStartResult[];
  readonly sdk: readonly ColdStartResult[];
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

export const measureColdStart = async (options: ColdStartOptions): Promise<ColdStartSamples> => {
  const { scenario, workers, lambdaEnv } = options;
  const bodies = benchBodies('cold', options.samples + 1);
  const heapArgs = lambdaHeapArgs(scenario.lambda.memoryMiB);
  const handlerRun = async (body: string): Promise<ColdStartResult> => {
    const job: ColdStartJob = { bundle: options.bundle, body, lambda: scenario.lambda };
    const result = await runWorker<ColdStartResult>(
      workers.coldStartHandler,
      job,
      lambdaEnv,
      heapArgs,
    );
    if (result.failures > 0) throw new Error('the first invocation failed its record');
    return result;
  };
  // Same environment for both: NODE_OPTIONS (source maps) applies to either process alike.
  const sdkRun = (): Promise<ColdStartResult> =>
    runWorker<ColdStartResult>(workers.coldStartSdk, {}, lambdaEnv, heapArgs);

  await handlerRun(bodies[options.samples] as string);
  await sdkRun();
  const handler: ColdStartResult[] = [];
  const sdk: ColdStartResult[] = [];
  for (let sample = 0; sample < options.samples; sample += 1) {
    sdk.push(await sdkRun());
    handler.push(await handlerRun(bodies[sample] as string));
  }
  return { handler, sdk };
};
