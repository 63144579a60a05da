/**
 * Runs moto's standalone server (an in-memory AWS emulator) on a free loopback port: for
 * `npm start -- --aws-emulator` and the integration tests. It starts through
 * `atomic_moto_server.py`, which applies DynamoDB requests one at a time and sends SQS messages
 * without scanning the queue (it says why).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freeLoopbackPort, watchProcess } from './emulator-process';
import { ensurePythonTools } from './python-tools';

export interface MotoServer {
  /** `http://127.0.0.1:<port>`: the endpoint for every AWS SDK client. */
  readonly endpoint: string;
  readonly port: number;
  /** Stops the server; resolves once the process has exited. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Wipes all state of every service. Only for a server one test file owns: on the shared
   * server other files run concurrently, so they isolate by unique resource names instead.
   */
  reset(): Promise<void>;
}

export interface StartMotoServerOptions {
  /** The Python that has moto; installed with `ensurePythonTools()` when absent. */
  readonly python?: string;
  /** How long to wait for the server to answer. @default 60000 */
  readonly startTimeoutMs?: number;
}

const HOST = '127.0.0.1';
const LAUNCHER = fileURLToPath(new URL('./atomic_moto_server.py', import.meta.url));
const OUTPUT_LINES_KEPT = 50;

const answers = async (endpoint: string): Promise<boolean> => {
  try {
    const response = await fetch(`${endpoint}/moto-api/data.json`, {
      signal: AbortSignal.timeout(2_000),
    });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
};

const stopProcess = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killTimer);
};

type Attempt = { server: MotoServer } | { retry: string };

const tryStart = async (python: string, startTimeoutMs: number): Promise<Attempt> => {
  const port = await freeLoopbackPort(HOST);
  const endpoint = `http://${HOST}:${port}`;
  const child = spawn(python, [LAUNCHER, '-H', HOST, '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watched = watchProcess(child, OUTPUT_LINES_KEPT);
  // Never leave an emulator behind when the test process exits without calling stop().
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const deadline = Date.now() + startTimeoutMs;
  while (!(await answers(endpoint))) {
    const exited = watched.ended();
    if (exited || Date.now() > deadline) {
      await stopProcess(child);
      process.off('exit', killOnExit);
      const output = watched.recentOutput();
      if (exited && /address already in use/i.test(output)) return { retry: output };
      throw watched.startFailure('moto_server', endpoint, exited, startTimeoutMs);
    }
    await sleep(100);
  }

  let stopped: Promise<void> | undefined;
  return {
    server: {
      endpoint,
      port,
      stop: () => {
        stopped ??= stopProcess(child).finally(() => process.off('exit', killOnExit));
        return stopped;
      },
      reset: async () => {
        const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`moto reset answered HTTP ${response.status}`);
      },
    },
  };
};

/** Starts `moto_server` on a free loopback port and waits until it answers. */
export const startMotoServer = async (
  options: StartMotoServerOptions = {},
): Promise<MotoServer> => {
  const python = options.python ?? (await ensurePythonTools()).python;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  let lastOutput = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const result = await tryStart(python, startTimeoutMs);
    if ('server' in result) return result.server;
    lastOutput = result.retry;
  }
  throw new Error(`moto_server found no free port after 3 attempts:\n${lastOutput}`);
};
