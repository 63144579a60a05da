/**
 * Runs MiniStack (an emulated AWS account that runs Lambda functions as local processes) on a
 * free loopback port, over HTTPS with IAM enforced: for `npm start -- --deployed` and the deploy
 * tests (test/deploy/). What it does and does not emulate is in docs/decisions.md (Deployed).
 *
 * - HTTPS: with IAM on, the stack's TLS-only queue and bucket policies apply, so every client
 *   must use HTTPS. MiniStack makes a self-signed certificate under its TMPDIR; its function
 *   processes trust it through NODE_EXTRA_CA_CERTS, our clients through `caCertificate`.
 * - Port 443: with TLS on it also binds 127.0.0.1:443 when it can (for Cognito issuers); a test
 *   server must not take a well-known port, so the launcher tells it 443 is never bindable.
 * - Other listeners: IoT MQTT (8883) and SFTP are switched off; only the gateway port is open.
 * - Stopping: it does not exit on SIGTERM while function processes live, so it runs in its own
 *   process group and the whole group is stopped.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeLoopbackPort, watchProcess } from './emulator-process';
import { ensurePythonTools } from './python-tools';

export interface MiniStackServer {
  /** `https://127.0.0.1:<port>`: the endpoint for every AWS SDK client. */
  readonly endpoint: string;
  readonly port: number;
  readonly region: string;
  /** The account every resource is created in. */
  readonly account: string;
  /** PEM of the server's self-signed certificate: pass it as `ca` to trust the endpoint. */
  readonly caCertificate: string;
  /** An HTTPS agent that trusts the endpoint, for AWS SDK clients (`requestHandler`). */
  readonly httpsAgent: Agent;
  /** The last lines MiniStack logged (function output included), for error messages. */
  recentOutput(): string;
  /** Stops MiniStack and its function processes; resolves once they are gone. Idempotent. */
  stop(): Promise<void>;
}

export interface StartMiniStackOptions {
  /** The region of the emulated account. */
  readonly region: string;
  /** The Python that has MiniStack; installed with `ensurePythonTools()` when absent. */
  readonly python?: string;
  /** Directories put first on the PATH of MiniStack, so its functions run on this `node`. */
  readonly pathPrefix?: readonly string[];
  /** How long to wait for it to answer. @default 60000 */
  readonly startTimeoutMs?: number;
}

const HOST = '127.0.0.1';
/** MiniStack's account when the caller's access key is not a 12-digit account id. */
export const MINISTACK_ACCOUNT = '000000000000';
const OUTPUT_LINES_KEPT = 200;

// Runs MiniStack's own entry point, with 443 never bindable (see the header).
const LAUNCH = [
  'import sys',
  'import ministack.app as app',
  'app._port_is_bindable = lambda *args, **kwargs: False',
  "sys.argv = ['ministack']",
  'app.main()',
].join('\n');

const healthy = (endpoint: string, agent: Agent): Promise<boolean> =>
  new Promise((resolve) => {
    const req = request(`${endpoint}/_ministack/health`, { agent, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });

const groupAlive = (pid: number): boolean => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

const stopGroup = async (child: ChildProcess): Promise<void> => {
  const pid = child.pid;
  if (pid === undefined) return;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // The group is already gone.
    }
  };
  signal('SIGTERM');
  for (let waited = 0; waited < 2_000 && groupAlive(pid); waited += 100) await sleep(100);
  signal('SIGKILL');
  for (let waited = 0; waited < 5_000 && groupAlive(pid); waited += 100) await sleep(100);
};

/** Starts MiniStack on a free loopback port with TLS and IAM on, and waits until it answers. */
export const startMiniStack = async (options: StartMiniStackOptions): Promise<MiniStackServer> => {
  const python = options.python ?? (await ensurePythonTools()).python;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const port = await freeLoopbackPort(HOST);
  const endpoint = `https://${HOST}:${port}`;
  // Its certificate, pid file and the functions' unpacked code live here, apart from any
  // other MiniStack on the machine.
  const home = mkdtempSync(path.join(tmpdir(), 'ministack-'));
  const certificate = path.join(home, 'ministack-tls', 'server.crt');
  const child = spawn(python, ['-c', LAUNCH], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PATH: [...(options.pathPrefix ?? []), process.env.PATH ?? ''].join(path.delimiter),
      TMPDIR: home,
      // Its signing keys and (unused) persisted state, otherwise under /tmp/ministack-state.
      STATE_DIR: path.join(home, 'state'),
      // Its function processes must trust its certificate. MiniStack sets this only when the
      // environment names no CA file yet, and many machines name the system bundle here.
      NODE_EXTRA_CA_CERTS: certificate,
      GATEWAY_PORT: String(port),
      BIND_HOST: HOST,
      USE_SSL: '1',
      AUTH: 'true',
      MINISTACK_REGION: options.region,
      MINISTACK_ACCOUNT_ID: MINISTACK_ACCOUNT,
      // Listeners it would open on fixed ports beside the gateway (IoT MQTT on 8883, SFTP): the
      // stack uses neither, and a test server opens one loopback port only.
      IOT_MTLS_ENABLED: '0',
      SFTP_ENABLED: '0',
      LOG_LEVEL: process.env.MINISTACK_LOG_LEVEL ?? 'WARNING',
      // Its own calls are made as the account's root; the test's clients use the same key.
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    },
  });
  const watched = watchProcess(child, OUTPUT_LINES_KEPT);
  const killOnExit = (): void => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  process.once('exit', killOnExit);
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= stopGroup(child).finally(() => {
      process.off('exit', killOnExit);
      rmSync(home, { recursive: true, force: true });
    });
    return stopped;
  };

  const deadline = Date.now() + startTimeoutMs;
  let agent: Agent | undefined;
  for (;;) {
    if (agent === undefined && existsSync(certificate)) {
      agent = new Agent({ ca: readFileSync(certificate, 'utf8'), keepAlive: true });
    }
    if (agent !== undefined && (await healthy(endpoint, agent))) break;
    const exited = watched.ended();
    if (exited || Date.now() > deadline) {
      await stop();
      throw watched.startFailure('MiniStack', endpoint, exited, startTimeoutMs);
    }
    await sleep(100);
  }
  return {
    endpoint,
    port,
    region: options.region,
    account: MINISTACK_ACCOUNT,
    caCertificate: readFileSync(certificate, 'utf8'),
    httpsAgent: agent,
    recentOutput: watched.recentOutput,
    stop,
  };
};
