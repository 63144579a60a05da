/**
 * Progress while a backend is prepared: an AWS emulator's first run installs moto for about
 * 30 s. Each step is printed with the time since preparing began, and while a step lasts a
 * line every few seconds says it is still going.
 */
import type { ToolsProgress } from '../backends';

/** A heartbeat line is printed after this long without a new step. */
export const HEARTBEAT_MS = 5_000;

export interface PreparationProgress extends ToolsProgress {
  /** Stops the heartbeat. Safe to call twice. */
  finish(): void;
}

export const startPreparationProgress = (
  out: (line: string) => void,
  title: string,
): PreparationProgress => {
  const started = Date.now();
  let current = 'checking what is installed';
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
  out(title);
  const heartbeat = setInterval(() => out(`  … ${current} (${elapsed()})`), HEARTBEAT_MS);
  return {
    step(text) {
      current = text;
      out(`  ${text} (${elapsed()})`);
    },
    finish() {
      clearInterval(heartbeat);
    },
  };
};
