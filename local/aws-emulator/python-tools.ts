/**
 * Python tools of the project (moto server as the AWS emulator for `npm start -- --aws-emulator`
 * and the integration tests, MiniStack as the emulated account the stack is deployed into for
 * `npm start -- --deployed` and the deploy tests, cfn-lint for the synthesized template),
 * installed on first use
 * into a project-local virtualenv (`.tools/venv`) so that a clean machine with only
 * Python 3 + venv + pip can run them. It lives under local/ (not test/) because
 * `npm start` uses it too.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SyncError } from '../../lambdas/core/errors';

/**
 * Pinned so every machine runs the same emulators and linter. `moto[server]` is the only moto
 * extra that makes `moto_server` work: its routing imports every backend (the per-service
 * extras alone fail at request time), and it already brings what SQS, EventBridge, Secrets
 * Manager and CloudFormation need. MiniStack is a young project whose behaviour changes between
 * releases: the deploy tests and docs/decisions.md describe exactly this version.
 */
export const PINNED_PYTHON_PACKAGES = [
  'moto[server]==5.2.5',
  'ministack==1.5.33',
  'cfn-lint==1.58.0',
] as const;

export interface PythonTools {
  /** The virtualenv's python. */
  readonly python: string;
  /** The `moto_server` executable. */
  readonly motoServer: string;
  /** The `cfn-lint` executable. */
  readonly cfnLint: string;
  /** The `ministack` executable (the venv's python runs it; this proves it is installed). */
  readonly ministack: string;
}

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Where the tools live unless told otherwise. */
export const DEFAULT_TOOLS_DIR = path.join(REPO_ROOT, '.tools');
const MARKER_CONTENT = `${JSON.stringify({ packages: PINNED_PYTHON_PACKAGES }, null, 2)}\n`;

interface ToolsPaths {
  readonly tools: string;
  readonly venv: string;
  readonly lock: string;
  /** Written last: its presence means the install completed. */
  readonly marker: string;
}

const pathsIn = (tools: string): ToolsPaths => {
  const venv = path.join(tools, 'venv');
  return {
    tools,
    venv,
    lock: path.join(tools, 'venv.lock'),
    marker: path.join(venv, 'contact-center-sync-tools.json'),
  };
};

/** As shown to the user: relative to the repository when inside it. */
const shown = (file: string): string => {
  const relative = path.relative(REPO_ROOT, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
};
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
  ministack: executable(venv, 'ministack'),
});

interface RunResult {
  readonly code: number | null;
  readonly output: string;
  readonly spawnError?: Error;
}

/**
 * Runs a command to completion, keeping combined output for error messages; `onLine` sees
 * each line of its standard output as it comes.
 */
const run = (
  command: string,
  args: readonly string[],
  onLine: (line: string) => void = () => {},
): Promise<RunResult> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (spawnError) =>
      resolve({ code: null, output: Buffer.concat(chunks).toString('utf8'), spawnError }),
    );
    child.on('close', (code) => resolve({ code, output: Buffer.concat(chunks).toString('utf8') }));
  });

const tail = (text: string, lines = 30): string =>
  text.trimEnd().split('\n').slice(-lines).join('\n');

const isInstalled = async (paths: ToolsPaths): Promise<boolean> => {
  const tools = toolsIn(paths.venv);
  if (
    ![tools.python, tools.motoServer, tools.cfnLint, tools.ministack].every((file) =>
      existsSync(file),
    )
  ) {
    return false;
  }
  try {
    return (await readFile(paths.marker, 'utf8')) === MARKER_CONTENT;
  } catch {
    return false;
  }
};

export const INSTALL_HINT =
  'The AWS emulators (moto, MiniStack) need Python >= 3.9 with the venv module and pip (Debian/Ubuntu: `apt-get install python3 python3-venv python3-pip`; macOS: `brew install python`). ' +
  'Set PYTHON=/path/to/python3 to choose another interpreter.';

/** The Python tools cannot be provided: no usable Python, or the venv / pip install failed. */
export class PythonToolsUnavailableError extends SyncError<'PYTHON_TOOLS_UNAVAILABLE'> {
  override readonly name = 'PythonToolsUnavailableError';
  readonly code = 'PYTHON_TOOLS_UNAVAILABLE';
  readonly category = 'operator';
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
  /** What the current step is doing now (pip's package of the moment). */
  detail?(text: string): void;
}

/**
 * What pip is doing, from its output lines: `Collecting <requirement>` per package, then
 * `Installing collected packages: …`. Any other line says nothing new.
 */
export const pipActivity = (): ((line: string) => string | undefined) => {
  let collected = 0;
  const packages = (): string => `${collected} ${collected === 1 ? 'package' : 'packages'}`;
  return (line) => {
    const collecting = /^Collecting ([A-Za-z0-9._-]+)/.exec(line);
    if (collecting) {
      collected += 1;
      return `collecting ${collecting[1]} (${packages()} so far)`;
    }
    if (line.startsWith('Installing collected packages')) return `installing ${packages()}`;
    return undefined;
  };
};

/** A venv python's arguments that install `packages` with pip, quietly and without asking. */
export const pipInstall = (packages: readonly string[]): string[] => [
  '-m',
  'pip',
  'install',
  '--disable-pip-version-check',
  '--no-input',
  '--progress-bar',
  'off',
  ...packages,
];

const install = async (paths: ToolsPaths, progress: ToolsProgress): Promise<void> => {
  progress.step('looking for Python 3 with venv and pip');
  const python = await findPython();
  // A venv built for other pins (or half-built by a killed run) is rebuilt from scratch, so
  // the installed set is exactly the pinned one.
  await rm(paths.venv, { recursive: true, force: true });
  progress.step(`creating the virtualenv ${shown(paths.venv)}`);
  const created = await run(python, ['-m', 'venv', paths.venv]);
  if (created.code !== 0) {
    throw new PythonToolsUnavailableError(
      'venv-failed',
      `Creating the virtualenv ${paths.venv} failed:\n${tail(created.output)}\n${INSTALL_HINT}`,
    );
  }
  const tools = toolsIn(paths.venv);
  progress.step(`installing ${PINNED_PYTHON_PACKAGES.join(', ')} with pip (about 40 s)`);
  const activity = pipActivity();
  const installed = await run(tools.python, pipInstall(PINNED_PYTHON_PACKAGES), (line) => {
    const now = activity(line);
    if (now !== undefined) progress.detail?.(now);
  });
  if (installed.code !== 0) {
    throw new PythonToolsUnavailableError(
      'install-failed',
      `pip install ${PINNED_PYTHON_PACKAGES.join(' ')} into ${paths.venv} failed (is PyPI reachable?):\n${tail(installed.output)}`,
    );
  }
  await writeFile(paths.marker, MARKER_CONTENT);
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
const withLock = async <T>(
  paths: ToolsPaths,
  progress: ToolsProgress,
  work: () => Promise<T>,
): Promise<T> => {
  await mkdir(paths.tools, { recursive: true });
  const ownerFile = path.join(paths.lock, 'owner');
  const deadline = Date.now() + LOCK_WAIT_MS;
  let waitingFor: number | undefined;
  for (;;) {
    try {
      await mkdir(paths.lock);
      await writeFile(ownerFile, String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(await readFile(ownerFile, 'utf8').catch(() => ''), 10);
    if (!Number.isNaN(owner) && owner !== waitingFor) {
      waitingFor = owner;
      progress.step(`waiting for process ${owner}, which is installing the tools`);
    }
    const lockAgeMs = await stat(paths.lock).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    // No owner yet is normal for a moment after mkdir; after a few seconds it is a crash.
    const stale = Number.isNaN(owner) ? lockAgeMs > 5_000 : !processIsAlive(owner);
    if (stale) {
      await rm(paths.lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out waiting for process ${owner} to finish installing the test tools (lock ${paths.lock}).`,
      );
    }
    await sleep(500);
  }
  try {
    return await work();
  } finally {
    await rm(paths.lock, { recursive: true, force: true });
  }
};

export interface EnsurePythonToolsOptions {
  /** Told each step of a first install. @default silent */
  readonly progress?: ToolsProgress;
  /** Holds `venv/` and the install lock. @default DEFAULT_TOOLS_DIR (`.tools`) */
  readonly toolsDir?: string;
}

/**
 * Creates `.tools/venv` and installs the pinned packages unless that is already done.
 * Idempotent, fast when installed, and safe to call from several processes at once.
 */
export const ensurePythonTools = async (
  options: EnsurePythonToolsOptions = {},
): Promise<PythonTools> => {
  const paths = pathsIn(options.toolsDir ?? DEFAULT_TOOLS_DIR);
  const progress = options.progress ?? { step: () => {} };
  if (!(await isInstalled(paths))) {
    await withLock(paths, progress, async () => {
      // Another process may have installed while we waited for the lock.
      if (!(await isInstalled(paths))) await install(paths, progress);
    });
  }
  return toolsIn(paths.venv);
};
