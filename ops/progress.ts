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

/** Plain progress lines are printed every this many messages (and at the total). */
const PLAIN_LINE_EVERY = 10;
const CLEAR_LINE = '\r\u001b[2K';

const describeCounts = (label: string, { moved, failed, total }: ProgressCounts): string => {
  const done = moved + failed;
  return `${label}: ${done}${total === undefined ? '' : `/${Math.max(total, done)}`} (moved ${moved}, failed ${failed})`;
};

export const renderBar = (counts: ProgressCounts, width: number): string => {
  const done = counts.moved + counts.failed;
  const total = Math.max(counts.total ?? done, done);
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
};

export const createProgress = (writer: OpsWriter, label: string): Progress => {
  let last: ProgressCounts = { moved: 0, failed: 0 };
  if (writer.isTTY) {
    let drawn = false;
    const draw = (): void => {
      const text = describeCounts(label, last);
      const width = Math.max(10, Math.min(40, (writer.columns ?? 80) - text.length - 2));
      writer.write(`${CLEAR_LINE}${renderBar(last, width)} ${text}`);
      drawn = true;
    };
    return {
      update(counts) {
        last = counts;
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
  let printedAt = -1;
  return {
    update(counts) {
      last = counts;
      const done = counts.moved + counts.failed;
      const atTotal = counts.total !== undefined && done >= counts.total;
      if (done !== printedAt && (done % PLAIN_LINE_EVERY === 0 || atTotal)) {
        writer.write(`${describeCounts(label, counts)}\n`);
        printedAt = done;
      }
    },
    note(line) {
      writer.write(`${line}\n`);
    },
    finish() {
      const done = last.moved + last.failed;
      if (done !== printedAt && done > 0) writer.write(`${describeCounts(label, last)}\n`);
    },
  };
};
