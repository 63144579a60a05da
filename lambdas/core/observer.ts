import type { Disposition } from './disposition';
import type { AttemptInfo } from './platform-caller';

/**
 * Told what happens, never asked: one object the wiring hands to the platform caller (every
 * HTTP request) and to the settling of every receive (`disposition.ts`). Metrics and debug logs in a
 * Lambda; the per-message report in the local run. What it throws is ignored.
 */
export interface Observer {
  attempt?(attempt: AttemptInfo): void;
  disposition?(disposition: Disposition): void;
}

/** Tells each of the observers, in order. */
export const observeAll = (...observers: readonly (Observer | undefined)[]): Observer => ({
  attempt: (attempt) => {
    for (const observer of observers) observer?.attempt?.(attempt);
  },
  disposition: (disposition) => {
    for (const observer of observers) observer?.disposition?.(disposition);
  },
});
