/**
 * The platform simulator in its own Node process, so its event loop and CPU time are not
 * shared with the function being measured. Every measurement talks to this same process over
 * loopback.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { FaultSettings, StatsSnapshot } from '../local/simulator';
import { PROJECT_ROOT } from './paths';

export interface SimulatorTenant {
  readonly apiKey: string;
  readonly platformCode: string;
  readonly companyCode: string;
  readonly environmentName: string;
  readonly secretsRegion: string;
}

export interface SimulatorProcess {
  readonly baseUrl: string;
  /** Its process id, for CPU pinning (bench/cpu-isolation.ts). */
  readonly pid: number;
  /** Clears records and counters: each run starts from an empty platform. */
  reset(): Promise<void>;
  stats(): Promise<StatsSnapshot>;
  /** Replaces all fault settings (omitted ones switch off). */
  setFaults(faults: FaultSettings): Promise<void>;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 30_000;

const admin = async (
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  payload?: unknown,
): Promise<unknown> => {
  const response = await fetch(`${baseUrl}/__admin/${path}`, {
    method,
    ...(payload === undefined
      ? {}
      : { body: JSON.stringify(payload), headers: { 'Content-Type': 'application/json' } }),
  });
  const body = (await response.json()) as unknown;
  if (!response.ok) throw new Error(`simulator ${method} ${path}: HTTP ${response.status}`);
  return body;
};

const waitForUrl = (child: ChildProcess): Promise<string> =>
  new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      reject(new Error(`simulator did not start within ${STARTUP_TIMEOUT_MS} ms:\n${output}`));
    }, STARTUP_TIMEOUT_MS);
    const onData = (text: string): void => {
      output += text;
      const match = /simulator listening on (\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(match[1]);
      }
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`simulator exited with code ${code}:\n${output}`));
    });
  });

export const startSimulatorProcess = async (tenant: SimulatorTenant): Promise<SimulatorProcess> => {
  // `--import tsx` rather than the tsx CLI: one process (no wrapper), so its CPU time is its own.
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join('local', 'simulator', 'cli.ts'),
      '--port',
      '0',
      '--api-key',
      tenant.apiKey,
      '--platform-code',
      tenant.platformCode,
      '--company-code',
      tenant.companyCode,
      '--environment',
      tenant.environmentName,
      '--secrets-region',
      tenant.secretsRegion,
    ],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let baseUrl: string;
  try {
    baseUrl = await waitForUrl(child);
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  // Keep draining its output so a full pipe never blocks it.
  child.stdout?.resume();
  child.stderr?.resume();
  if (child.pid === undefined) throw new Error('the simulator process has no pid');
  return {
    baseUrl,
    pid: child.pid,
    reset: async () => {
      await admin(baseUrl, 'POST', 'reset');
    },
    stats: async () => (await admin(baseUrl, 'GET', 'stats')) as StatsSnapshot,
    setFaults: async (faults) => {
      await admin(baseUrl, 'POST', 'faults', faults);
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
};
