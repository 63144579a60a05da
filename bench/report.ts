/** The bench's table (stdout) and `bench/RESULTS.md`. */
import { execFileSync } from 'node:child_process';
import { cpus, release, totalmem } from 'node:os';
import { PROJECT_ROOT } from './paths';

/** `info`: an informational row with no target. */
export type Verdict = 'PASS' | 'MISS' | 'PASS (soft)' | 'MISS (soft)' | 'info';

export interface Row {
  readonly metric: string;
  readonly value: string;
  readonly baseline: string;
  readonly ratio: string;
  readonly target: string;
  readonly verdict: Verdict;
}

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly date: string;
  /** The commit measured and any uncommitted changes to runtime or CDK code. */
  readonly code: string;
}

const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();

const describeCode = (): string => {
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    const changed = git('status', '--porcelain', '--', 'lambdas', 'lib')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.slice(3));
    return changed.length === 0
      ? `commit ${commit}`
      : `commit ${commit} with uncommitted changes to ${changed.join(', ')}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
};

export const describeMachine = (): Machine => ({
  cpu: cpus()[0]?.model.trim() ?? 'unknown',
  cores: cpus().length,
  memoryGiB: totalmem() / 1024 ** 3,
  os: `${process.platform} ${release()} ${process.arch}`,
  // The children run `process.execPath`, the same binary as this process.
  node: process.version,
  date: new Date().toISOString(),
  code: describeCode(),
});

const COLUMNS = ['metric', 'value', 'baseline', 'ratio', 'target', 'result'] as const;

const cells = (row: Row): string[] => [
  row.metric,
  row.value,
  row.baseline,
  row.ratio,
  row.target,
  row.verdict,
];

/** Fixed-width text table for the terminal. */
export const textTable = (rows: readonly Row[]): string => {
  const lines = [COLUMNS.map(String), ...rows.map(cells)];
  const widths = COLUMNS.map((_, column) =>
    Math.max(...lines.map((line) => (line[column] ?? '').length)),
  );
  const format = (line: readonly string[]): string =>
    line
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [format(lines[0] ?? []), rule, ...lines.slice(1).map(format)].join('\n');
};

/** Markdown table; `|` in cells is escaped. */
export const markdownTable = (
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string => {
  const escapeCell = (cell: string): string => cell.replaceAll('|', '\\|');
  const line = (cellsOfLine: readonly string[]): string =>
    `| ${cellsOfLine.map(escapeCell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
};

export const resultsTable = (rows: readonly Row[]): string =>
  markdownTable(COLUMNS, rows.map(cells));

/** The `p`-th percentile (0–100) of ascending values, nearest rank; NaN when there are none. */
export const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
};

/** The median of values in any order (the mean of the middle two for an even count); NaN when there are none. */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
export const ms = (value: number): string => `${value.toFixed(1)} ms`;
export const ratio = (value: number): string => value.toFixed(3);
