/**
 * Progress of a long command: a redrawn bar on a terminal, plain lines otherwise (logs, CI,
 * pipes). No dependency: a bar is one line rewritten with `\r`.
 */
import type { OpsWriter } from './io';

export interface ProgressCounts {
  readonly moved: number;
  readonly failed: number;
  /** Best known total; may grow while the command runs (SQS counts are approximate). */
  readonly total?: number | undefined;
}

export interface Progress {
  /** New counts. */
  update(counts: ProgressCounts): void;
  /** A line that must stay visible (a failure, a warning), printed above the bar. */
  note(line: string): void;
  /** Removes the bar. */
  finish(): void;
}

export interface ProgressOptions {
  /** Words for the two counts (default moved, failed). */
  readonly words?: { readonly moved: string; readonly failed: string };
  /** Show the rate since the first update and, with a total, the time left. */
  readonly rate?: boolean;
  /** Plain lines are printed each time the count passes a multiple of this (default 10). */
  readonly plainEvery?: number;
  /** Clock in ms (tests). */
  readonly now?: () => number;
}

const CLEAR_LINE = '\r\u001b[2K';

/** `42s`, `3m05s`, `1h02m`. */
export const formatDuration = (seconds: number): string => {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
};

/** The rate of the counts since the first update, and the time left at that rate. */
const rateAndEta = (
  counts: ProgressCounts,
  first: { done: number; at: number } | undefined,
  now: number,
): string => {
  const done = counts.moved + counts.failed;
  if (first === undefined || now <= first.at || done <= first.done) return '';
  const perSecond = ((done - first.done) * 1000) / (now - first.at);
  const left = counts.total === undefined ? undefined : Math.max(0, counts.total - done);
  return `, ${Math.round(perSecond)}/s${left === undefined ? '' : `, ETA ${formatDuration(left / perSecond)}`}`;
};

const describeCounts = (
  label: string,
  { moved, failed, total }: ProgressCounts,
  words: { readonly moved: string; readonly failed: string } = { moved: 'moved', failed: 'failed' },
): string => {
  const done = moved + failed;
  return `${label}: ${done}${total === undefined ? '' : `/${Math.max(total, done)}`} (${words.moved} ${moved}, ${words.failed} ${failed})`;
};

export const renderBar = (counts: ProgressCounts, width: number): string => {
  const done = counts.moved + counts.failed;
  const total = Math.max(counts.total ?? done, done);
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
};

export const createProgress = (
  writer: OpsWriter,
  label: string,
  options: ProgressOptions = {},
): Progress => {
  let last: ProgressCounts = { moved: 0, failed: 0 };
  const now = options.now ?? Date.now;
  const every = options.plainEvery ?? 10;
  let first: { done: number; at: number } | undefined;
  const describe = (counts: ProgressCounts): string => {
    const text = describeCounts(label, counts, options.words);
    return options.rate ? `${text}${rateAndEta(counts, first, now())}` : text;
  };
  const remember = (counts: ProgressCounts): void => {
    last = counts;
    first ??= { done: counts.moved + counts.failed, at: now() };
  };
  if (writer.isTTY) {
    let drawn = false;
    const draw = (): void => {
      const text = describe(last);
      const width = Math.max(10, Math.min(40, (writer.columns ?? 80) - text.length - 2));
      writer.write(`${CLEAR_LINE}${renderBar(last, width)} ${text}`);
      drawn = true;
    };
    return {
      update(counts) {
        remember(counts);
        draw();
      },
      note(line) {
        writer.write(`${drawn ? CLEAR_LINE : ''}${line}\n`);
        if (drawn) draw();
      },
      finish() {
        if (drawn) writer.write(CLEAR_LINE);
        drawn = false;
      },
    };
  }
  let printedAt = 0;
  return {
    update(counts) {
      remember(counts);
      const done = counts.moved + counts.failed;
      const atTotal = counts.total !== undefined && done >= counts.total;
      // Counts may jump (a batch at a time): print when a multiple was passed, not only hit.
      const passed = Math.floor(done / every) > Math.floor(printedAt / every);
      if (done !== printedAt && (passed || atTotal)) {
        writer.write(`${describe(counts)}\n`);
        printedAt = done;
      }
    },
    note(line) {
      writer.write(`${line}\n`);
    },
    finish() {
      const done = last.moved + last.failed;
      if (done !== printedAt && done > 0) writer.write(`${describe(last)}\n`);
    },
  };
};
