/** Runs a worker script in a fresh Node process and reads its result from fd 3. */
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { SyncError } from '../lambdas/core/errors';
import { type CpuIsolation, onMeasuredCpu } from './cpu-isolation';
import { PROJECT_ROOT } from './paths';

const STDERR_KEPT = 8 * 1024;

export class WorkerError extends SyncError<'WORKER_FAILED'> {
  override readonly name = 'WorkerError';
  readonly code = 'WORKER_FAILED';
  readonly category = 'operator';
}

/**
 * `process.execPath` is the project's Node 24 (npm run puts node_modules/.bin first). The
 * child's stdout (the handler's log lines) goes to /dev/null: the lines are still built and
 * written, only nobody reads them.
 */
export const runWorker = <T>(
  script: string,
  job: unknown,
  env: Readonly<Record<string, string>>,
  nodeArgs: readonly string[] = [],
  /** Given: the worker runs alone on the measured CPU. */
  isolation?: CpuIsolation,
): Promise<T> =>
  new Promise((resolve, reject) => {
    const { command, argv } = onMeasuredCpu(isolation, process.execPath, [
      ...nodeArgs,
      script,
      JSON.stringify(job),
    ]);
    const child = spawn(command, argv, {
      cwd: PROJECT_ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let result = '';
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_KEPT);
    });
    const resultPipe = child.stdio[3];
    if (!(resultPipe instanceof Readable)) {
      child.kill();
      reject(new WorkerError(`no result pipe to ${script}`));
      return;
    }
    resultPipe.setEncoding('utf8');
    resultPipe.on('data', (text: string) => {
      result += text;
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0 && result !== '') {
        resolve(JSON.parse(result) as T);
        return;
      }
      const how = signal ? `signal ${signal}` : `exit code ${code}`;
      reject(new WorkerError(`${script} failed (${how}):\n${stderr.trim()}`));
    });
  });

/**
 * The V8 heap limits Lambda's Node.js runtime bootstrap derives from the function memory
 * (new space = memory / 10, semi-space = half of it, old space = memory - new space), so the
 * garbage collector works under the same budget as in a deployed function.
 */
export const lambdaHeapArgs = (memoryMiB: number): string[] => {
  const newSpace = Math.floor(memoryMiB / 10);
  return [
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memoryMiB - newSpace}`,
  ];
};
