/**
 * Runs `npm start` (`tsx local/start.ts`) as a child process, as a user would, and parses its
 * per-message lines and summary. The project's Node 24 comes first on PATH.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_BIN, REPO_ROOT, repoTool } from './repo-paths';

/** Where `npm start` runs (its callers read the example files from there too). */
export { REPO_ROOT };

export interface FateLine {
  readonly fate: string;
  readonly action: string;
  readonly correlationId: string;
  readonly code: string;
  readonly receives: number;
}

export interface SummaryTotals {
  readonly received: number;
  readonly applied: number;
  readonly already: number;
  readonly skipped: number;
  readonly deadLettered: number;
  readonly redriven: number;
  readonly lost: number;
  readonly retries: number;
}

export interface NpmStartResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The final fate lines, in output order. */
  readonly fates: readonly FateLine[];
  /** The `total` row of the summary table, when printed. */
  readonly totals: SummaryTotals | undefined;
}

const FATE_LINE = /^ {2}(applied|DLQ|REDRIVEN|UNROUTED|LOST)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)$/;
const TOTAL_LINE = /^ {2}total((?:\s+\d+){8})$/;

export const parseFateLines = (stdout: string): FateLine[] =>
  stdout.split('\n').flatMap((line) => {
    const match = FATE_LINE.exec(line);
    if (!match) return [];
    const [, fate = '', action = '', correlationId = '', code = '', receives = '0'] = match;
    return [{ fate, action, correlationId, code, receives: Number(receives) }];
  });

export const parseTotals = (stdout: string): SummaryTotals | undefined => {
  for (const line of stdout.split('\n')) {
    const match = TOTAL_LINE.exec(line);
    if (!match) continue;
    const [received, applied, already, skipped, deadLettered, redriven, lost, retries] = (
      match[1] ?? ''
    )
      .trim()
      .split(/\s+/)
      .map(Number) as [number, number, number, number, number, number, number, number];
    return { received, applied, already, skipped, deadLettered, redriven, lost, retries };
  }
  return undefined;
};

/** `npm start -- <args>` from the repository root; resolves when the process has exited. */
export const runNpmStart = (args: readonly string[]): Promise<NpmStartResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(repoTool('tsx'), ['local/start.ts', ...args], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PATH: `${REPO_BIN}${path.delimiter}${process.env.PATH ?? ''}`,
        INIT_CWD: REPO_ROOT,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      resolve({
        code,
        stdout,
        stderr: Buffer.concat(err).toString('utf8'),
        fates: parseFateLines(stdout),
        totals: parseTotals(stdout),
      });
    });
  });
