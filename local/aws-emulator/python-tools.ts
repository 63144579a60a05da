/**
 * Python tools of the project (moto server as the AWS emulator for `npm start -- --aws-emulator`
 * and the integration tests, cfn-lint for the synthesized template), installed on first use
 * into a project-local virtualenv (`.tools/venv`) so that a clean machine with only
 * Python 3 + venv + pip can run them. Moved here from test/support (which re-exports it)
 * because runtime tooling under local/ must not import from test/.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Pinned so every machine runs the same emulator and linter. `moto[server]` is the only moto
 * extra that makes `moto_server` work: its routing imports every backend (the per-service
 * extras alone fail at request time), and it already brings what SQS, EventBridge, Secrets
 * Manager and CloudFormation need.
 */
export const PINNED_PYTHON_PACKAGES = ['moto[server]==5.2.5', 'cfn-lint==1.58.0'] as const;

export interface PythonTools {
  /** The virtualenv's python. */
  readonly python: string;
  /** The `moto_server` executable. */
  readonly motoServer: string;
  /** The `cfn-lint` executable. */
  readonly cfnLint: string;
}

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
const TOOLS_DIR = path.join(REPO_ROOT, '.tools');
const VENV_DIR = path.join(TOOLS_DIR, 'venv');
const LOCK_DIR = path.join(TOOLS_DIR, 'venv.lock');
const MARKER_FILE = path.join(VENV_DIR, 'contact-center-sync-tools.json');
const MARKER_CONTENT = `${JSON.stringify({ packages: PINNED_PYTHON_PACKAGES }, null, 2)}\n`;
/** Longest we wait for another process's install before giving up. */
const LOCK_WAIT_MS = 10 * 60_000;

const binDir = (venv: string): string =>
  path.join(venv, process.platform === 'win32' ? 'Scripts' : 'bin');
const executable = (venv: string, name: string): string =>
  path.join(binDir(venv), process.platform === 'win32' ? `${name}.exe` : name);

const toolsIn = (venv: string): PythonTools => ({
  python: executable(venv, 'python'),
  motoServer: executable(venv, 'moto_server'),
  cfnLint: executable(venv, 'cfn-lint'),
});

interface RunResult {
  readonly code: number | null;
  readonly output: string;
  readonly spawnError?: Error;
}

/** Runs a command to completion, keeping combined output for error messages. */
const run = (command: string, args: readonly string[]): Promise<RunResult> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (spawnError) =>
      resolve({ code: null, output: Buffer.concat(chunks).toString('utf8'), spawnError }),
    );
    child.on('close', (code) => resolve({ code, output: Buffer.concat(chunks).toString('utf8') }));
  });

const tail = (text: string, lines = 30): string =>
  text.trimEnd().split('\n').slice(-lines).join('\n');

const isInstalled = async (): Promise<boolean> => {
  const tools = toolsIn(VENV_DIR);
  if (![tools.python, tools.motoServer, tools.cfnLint].every((file) => existsSync(file))) {
    return false;
  }
  try {
    return (await readFile(MARKER_FILE, 'utf8')) === MARKER_CONTENT;
  } catch {
    return false;
  }
};

export const INSTALL_HINT =
  'The AWS emulator (moto) needs Python >= 3.9 with the venv module and pip (Debian/Ubuntu: `apt-get install python3 python3-venv python3-pip`; macOS: `brew install python`). ' +
  'Set PYTHON=/path/to/python3 to choose another interpreter.';

/** The Python tools cannot be provided: no usable Python, or the venv / pip install failed. */
export class PythonToolsUnavailableError extends Error {
  override readonly name = 'PythonToolsUnavailableError';
  constructor(
    readonly problem: 'no-python' | 'venv-failed' | 'install-failed',
    message: string,
  ) {
    super(message);
  }
}

/** Finds a Python 3.9+ that can create virtualenvs with pip. */
const findPython = async (): Promise<string> => {
  const candidates = process.env.PYTHON ? [process.env.PYTHON] : ['python3', 'python'];
  const problems: string[] = [];
  for (const candidate of candidates) {
    const probe = await run(candidate, [
      '-c',
      'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 9) else 3)',
    ]);
    if (probe.code === 0) return candidate;
    if (probe.spawnError) problems.push(`${candidate}: not found`);
    else if (probe.code === 3) problems.push(`${candidate}: older than 3.9`);
    else problems.push(`${candidate}: no venv/ensurepip module (${tail(probe.output, 1)})`);
  }
  throw new PythonToolsUnavailableError(
    'no-python',
    `No usable Python for the project's Python tools (${problems.join('; ')}). ${INSTALL_HINT}`,
  );
};

/** Told what a first run is doing, for a progress line; never asked anything. */
export interface ToolsProgress {
  /** A new step begins. */
  step(text: string): void;
}

const SILENT: ToolsProgress = { step: () => {} };

const install = async (progress: ToolsProgress): Promise<void> => {
  progress.step('looking for Python 3 with venv and pip');
  const python = await findPython();
  // A venv built for other pins (or half-built by a killed run) is rebuilt from scratch, so
  // the installed set is exactly the pinned one.
  await rm(VENV_DIR, { recursive: true, force: true });
  progress.step(`creating the virtualenv ${path.relative(REPO_ROOT, VENV_DIR)}`);
  const created = await run(python, ['-m', 'venv', VENV_DIR]);
  if (created.code !== 0) {
    throw new PythonToolsUnavailableError(
      'venv-failed',
      `Creating the virtualenv ${VENV_DIR} failed:\n${tail(created.output)}\n${INSTALL_HINT}`,
    );
  }
  const tools = toolsIn(VENV_DIR);
  progress.step(`installing ${PINNED_PYTHON_PACKAGES.join(', ')} from PyPI (about 30 s)`);
  const installed = await run(tools.python, [
    '-m',
    'pip',
    'install',
    '--disable-pip-version-check',
    '--no-input',
    '--quiet',
    ...PINNED_PYTHON_PACKAGES,
  ]);
  if (installed.code !== 0) {
    throw new PythonToolsUnavailableError(
      'install-failed',
      `pip install ${PINNED_PYTHON_PACKAGES.join(' ')} into ${VENV_DIR} failed (is PyPI reachable?):\n${tail(installed.output)}`,
    );
  }
  // Written last: its presence means the install completed.
  await writeFile(MARKER_FILE, MARKER_CONTENT);
};

const processIsAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Cross-process lock: `mkdir` is atomic, so exactly one process creates the lock directory.
 * A lock whose owner process has died is taken over.
 */
const withLock = async <T>(work: () => Promise<T>): Promise<T> => {
  await mkdir(TOOLS_DIR, { recursive: true });
  const ownerFile = path.join(LOCK_DIR, 'owner');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(LOCK_DIR);
      await writeFile(ownerFile, String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(await readFile(ownerFile, 'utf8').catch(() => ''), 10);
    const lockAgeMs = await stat(LOCK_DIR).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    // No owner yet is normal for a moment after mkdir; after a few seconds it is a crash.
    const stale = Number.isNaN(owner) ? lockAgeMs > 5_000 : !processIsAlive(owner);
    if (stale) {
      await rm(LOCK_DIR, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out waiting for process ${owner} to finish installing the test tools (lock ${LOCK_DIR}).`,
      );
    }
    await sleep(500);
  }
  try {
    return await work();
  } finally {
    await rm(LOCK_DIR, { recursive: true, force: true });
  }
};

/**
 * Creates `.tools/venv` and installs the pinned packages unless that is already done.
 * Idempotent, fast when installed, and safe to call from several processes at once.
 */
export const ensurePythonTools = async (progress: ToolsProgress = SILENT): Promise<PythonTools> => {
  if (!(await isInstalled())) {
    progress.step('waiting for any other process installing the tools');
    await withLock(async () => {
      // Another process may have installed while we waited for the lock.
      if (!(await isInstalled())) await install(progress);
    });
  }
  return toolsIn(VENV_DIR);
};
