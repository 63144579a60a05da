import type { Disposition } from '../pipeline/disposition';
import type { AttemptInfo } from '../platform/platform-caller';

/**
 * Told what happens, never asked: one object the wiring hands to the platform caller (every
 * HTTP request) and to the settling of every receive (`disposition.ts`). Metrics and debug logs in a
 * Lambda; the per-message report in the local run. What it throws is ignored.
 */
export interface Observer {
  attempt?(attempt: AttemptInfo): void;
  disposition?(disposition: Disposition): void;
}
