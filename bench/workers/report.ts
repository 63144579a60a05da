import { writeSync } from 'node:fs';
import type { ColdStartResult } from '../protocol';

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
