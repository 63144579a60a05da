import { writeSync } from 'node:fs';
import { forEachConcurrently } from '../batching';
import type { ColdStartResult, LoadResult, PhaseResult } from '../protocol';

/** File descriptor the bench reads the worker's result from (stdout carries log lines). */
const RESULT_FD = 3;

/** Reads the job the bench passed as JSON in argv[2]. */
export const readJob = <T>(): T => {
  const text = process.argv[2];
  if (text === undefined) throw new Error('worker needs its job as JSON in argv[2]');
  return JSON.parse(text) as T;
};

/** Hands the result to the bench and ends the process (keep-alive sockets would hold it open). */
export const report = (result: unknown): never => {
  writeSync(RESULT_FD, JSON.stringify(result));
  process.exit(0);
};

/** Bundled handler entry: `export const handler`. */
export type LambdaEntry = (event: unknown, context: unknown) => Promise<unknown>;

export const handlerOf = (module: unknown): LambdaEntry => {
  const handler = (module as { handler?: unknown }).handler;
  if (typeof handler !== 'function') throw new Error('bundle does not export a handler');
  return handler as LambdaEntry;
};

/** CPU time (user + system) this process spent since `before`, ms. */
const cpuMs = (before: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};

/**
 * One timed phase of a load worker, measured the same way for the handler and its baselines:
 * `work` runs over `units` with `concurrency` in flight and returns how many of its items
 * failed; `items` is what the phase counts (messages or requests).
 */
export const timePhase = async <T>(
  units: readonly T[],
  concurrency: number,
  items: number,
  work: (unit: T) => Promise<number>,
): Promise<PhaseResult> => {
  let failures = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await forEachConcurrently(units, concurrency, async (unit) => {
    failures += await work(unit);
  });
  return { items, elapsedMs: performance.now() - started, failures, cpuMs: cpuMs(cpuBefore) };
};

/** Reports an import-only cold start (the baselines): `load` timed in this fresh process. */
export const reportImport = async (load: () => Promise<unknown>): Promise<never> => {
  const started = performance.now();
  await load();
  const loaded = performance.now();
  return report({
    bootMs: started,
    totalMs: loaded - started,
    importMs: loaded - started,
    invokeMs: 0,
    failures: 0,
  } satisfies ColdStartResult);
};

/** Runs a load worker's warm-up then its measured phase, and reports both with peak memory. */
export const reportLoad = async <T>(
  run: (units: T) => Promise<PhaseResult>,
  phases: { readonly warmup: T; readonly measured: T },
  extra: Partial<LoadResult> = {},
): Promise<never> => {
  const warmup = await run(phases.warmup);
  const measured = await run(phases.measured);
  return report({
    warmup,
    measured,
    maxRssKiB: process.resourceUsage().maxRSS,
    ...extra,
  } satisfies LoadResult);
};
