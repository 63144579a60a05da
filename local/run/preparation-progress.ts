/**
 * Progress while a backend is prepared: an AWS emulator's first run installs moto for about
 * 30 s. Each step is printed with the time since preparing began. While a step lasts, a
 * terminal shows one status line redrawn every second; anything else (a log, CI, a pipe) gets
 * a line every few seconds saying what is still going on.
 */
import type { ToolsProgress } from '../backends';

/** Without a terminal, a "still going" line follows this long after the last line. */
export const HEARTBEAT_MS = 5_000;
/** A terminal's status line is redrawn this often. */
const REDRAW_MS = 1_000;
const CLEAR_LINE = '\r\u001b[2K';

/** A text sink; `process.stderr` fits. */
export interface ProgressWriter {
  write(text: string): unknown;
  /** True for a terminal: the status line is redrawn in place. */
  readonly isTTY?: boolean;
}

export interface PreparationProgress extends Required<ToolsProgress> {
  /** Stops the heartbeat and clears the status line. Safe to call twice. */
  finish(): void;
}

export const startPreparationProgress = (
  writer: ProgressWriter,
  title: string,
): PreparationProgress => {
  const started = Date.now();
  let step = 'checking what is installed';
  let detail: string | undefined;
  const elapsed = (): string => `${Math.round((Date.now() - started) / 1000)} s`;
  const status = (): string => `  … ${step}${detail ? `: ${detail}` : ''} (${elapsed()})`;
  writer.write(`${title}\n`);

  let drawn = false;
  const clear = (): void => {
    if (drawn) writer.write(CLEAR_LINE);
    drawn = false;
  };
  const tick = writer.isTTY
    ? (): void => {
        writer.write(`${CLEAR_LINE}${status()}`);
        drawn = true;
      }
    : (): void => {
        writer.write(`${status()}\n`);
      };
  const every = writer.isTTY ? REDRAW_MS : HEARTBEAT_MS;
  let timer = setInterval(tick, every);
  // Never keeps the process alive on its own.
  timer.unref();
  let finished = false;

  return {
    step(text) {
      if (finished) return;
      clear();
      step = text;
      detail = undefined;
      writer.write(`  ${text} (${elapsed()})\n`);
      // The next "still going" line counts from this one.
      clearInterval(timer);
      timer = setInterval(tick, every);
      timer.unref();
    },
    detail(text) {
      detail = text;
    },
    finish() {
      finished = true;
      clearInterval(timer);
      clear();
    },
  };
};
