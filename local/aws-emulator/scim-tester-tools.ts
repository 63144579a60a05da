/**
 * scim2-tester, the python-scim project's RFC 7643/7644 conformance checker, installed on first
 * use into its own virtualenv (`.tools/scim-tester/venv`), apart from the emulator's venv so its
 * pins (pydantic 2, httpx2, Python 3.11+) never move moto's or cfn-lint's.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DEFAULT_TOOLS_DIR,
  INSTALL_HINT,
  PythonToolsUnavailableError,
  pipInstall,
} from './python-tools';

/** The tester and everything it brings, pinned so every machine runs the same checks. */
export const PINNED_SCIM_TESTER_PACKAGES = [
  'scim2-tester==0.5.2',
  'scim2-client[httpx2]==0.13.2',
  'scim2-models==0.12.3',
  'httpx2==2.16.2',
  'httpcore2==2.16.2',
  'pydantic==2.14.4',
  'pydantic_core==2.50.5',
] as const;

/** The script that runs `check_server` and prints its results as JSON. */
export const CONFORMANCE_SCRIPT = path.resolve(import.meta.dirname, '..', 'scim', 'conformance.py');

const MARKER_CONTENT = `${JSON.stringify({ packages: PINNED_SCIM_TESTER_PACKAGES }, null, 2)}\n`;
const LOCK_WAIT_MS = 10 * 60_000;

interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion and keeps its output. */
export const runCommand = (command: string, args: readonly string[]): Promise<RunResult> =>
  new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const done = (code: number | null, extra = '') =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8') + extra,
      });
    child.on('error', (error) => done(null, error.message));
    child.on('close', (code) => done(code));
  });

const tail = (text: string): string => text.trimEnd().split('\n').slice(-20).join('\n');

/** A Python 3.11+ with venv (scim2-tester needs 3.11). */
const findPython = async (): Promise<string> => {
  const candidates = process.env.PYTHON ? [process.env.PYTHON] : ['python3', 'python'];
  for (const candidate of candidates) {
    const probe = await runCommand(candidate, [
      '-c',
      'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 11) else 3)',
    ]);
    if (probe.code === 0) return candidate;
  }
  throw new PythonToolsUnavailableError(
    'no-python',
    `scim2-tester needs Python >= 3.11 with venv and pip (tried ${candidates.join(', ')}). ${INSTALL_HINT}`,
  );
};

export interface ScimTester {
  /** The virtualenv's python, which runs `CONFORMANCE_SCRIPT`. */
  readonly python: string;
}

/**
 * Creates `<toolsDir>/scim-tester/venv` with the pinned packages unless already done; one
 * process installs at a time (an atomic `mkdir` lock), the others wait for it.
 */
export const ensureScimTester = async (toolsDir = DEFAULT_TOOLS_DIR): Promise<ScimTester> => {
  const home = path.join(toolsDir, 'scim-tester');
  const venv = path.join(home, 'venv');
  const python = path.join(venv, process.platform === 'win32' ? 'Scripts' : 'bin', 'python');
  const marker = path.join(venv, 'contact-center-sync-scim-tester.json');
  const installed = async () =>
    existsSync(python) && (await readFile(marker, 'utf8').catch(() => '')) === MARKER_CONTENT;
  if (await installed()) return { python };

  await mkdir(home, { recursive: true });
  const lock = path.join(home, 'install.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for the install lock ${lock}`);
      await sleep(500);
    }
  }
  try {
    if (await installed()) return { python };
    const interpreter = await findPython();
    await rm(venv, { recursive: true, force: true });
    const created = await runCommand(interpreter, ['-m', 'venv', venv]);
    if (created.code !== 0) {
      throw new PythonToolsUnavailableError(
        'venv-failed',
        `Creating ${venv} failed:\n${tail(created.stderr)}`,
      );
    }
    const pip = await runCommand(python, pipInstall(PINNED_SCIM_TESTER_PACKAGES));
    if (pip.code !== 0) {
      throw new PythonToolsUnavailableError(
        'install-failed',
        `pip install ${PINNED_SCIM_TESTER_PACKAGES.join(' ')} failed (is PyPI reachable?):\n${tail(pip.stderr)}`,
      );
    }
    await writeFile(marker, MARKER_CONTENT);
    return { python };
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
};

/** One check of scim2-tester, as `conformance.py` prints it. */
export interface ConformanceCheck {
  /** SUCCESS, COMPLIANT, ACCEPTABLE (conformant); DEVIATION, ERROR, CRITICAL, SKIPPED, … */
  readonly status: string;
  readonly title: string | null;
  readonly reason: string | null;
  readonly tags: readonly string[];
  readonly resourceType: string | null;
}

/** Runs every check of scim2-tester against `baseUrl` with the bearer `token`. */
export const runConformance = async (
  baseUrl: string,
  token: string,
  toolsDir?: string,
): Promise<ConformanceCheck[]> => {
  const { python } = await ensureScimTester(toolsDir);
  const run = await runCommand(python, [CONFORMANCE_SCRIPT, baseUrl, token]);
  if (run.code !== 0) {
    throw new Error(`scim2-tester exited with ${run.code}:\n${tail(run.stderr)}`);
  }
  return JSON.parse(run.stdout) as ConformanceCheck[];
};
