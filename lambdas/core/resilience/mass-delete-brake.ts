import type { OwnCode } from '../pipeline/outcome';

/**
 * A brake on mass deletes, per destructive action and shared by every instance: a count of the
 * destructive messages let through in a rolling window, kept in one store item per action. Once
 * a message would take the count above the limit the brake trips, and stays tripped until an
 * operator releases or discards what it held (`npm run ops -- brake …`): a wrong HR export or a
 * CRM bug stops at the limit instead of wiping out the agents or a campaign.
 *
 * The rolling count is a sliding-window counter: windows aligned to the clock, and the count of
 * the window before weighted by how much of it the rolling window still covers. Counting is one
 * conditional write per message (`count`); a new window costs one more (`roll`), as does the
 * first message of an instance, which does not yet know the previous window's count.
 */

/** The shared state of one action's brake. No item: armed, nothing counted. */
export interface BrakeState {
  /** Start of the window being counted (epoch ms, a multiple of the window length). */
  readonly windowStart: number;
  /** Destructive messages let through in that window. */
  readonly used: number;
  /** Let through in the window before it; weighted into the rolling count. */
  readonly previousUsed: number;
  /** When the brake tripped (epoch ms); absent while armed. */
  readonly trippedAt?: number;
  /** When an operator last re-armed it (release or discard). */
  readonly rearmedAt?: number;
  /** The limit the functions counted against when they last started a window or tripped. */
  readonly limit?: number;
  readonly windowMs?: number;
}

/** What a count expects of the item: this window, as last seen, with room left under the limit. */
export interface BrakeCountCondition {
  readonly windowStart: number;
  readonly previousUsed: number;
  readonly maxUsed: number;
}

/** A conditional write's answer: done (the state after it) or refused (the state that refused it). */
export type BrakeWrite =
  | { readonly done: true; readonly state: BrakeState }
  | { readonly done: false; readonly state: BrakeState | undefined };

/** Where the brakes keep their state (the ledger table in a stack; memory locally). */
export interface BrakeStore {
  read(action: string): Promise<BrakeState | undefined>;
  /**
   * Adds one to `used` if the brake is armed, counts window `windowStart` with `previousUsed`
   * as given, and `used < maxUsed`.
   */
  count(action: string, expected: BrakeCountCondition): Promise<BrakeWrite>;
  /**
   * Starts window `to.windowStart` with this message counted (`used` 1) if the brake is armed
   * and still counts window `from` (undefined: no window yet); notes the limit in force.
   */
  roll(action: string, from: number | undefined, to: BrakeRoll): Promise<BrakeWrite>;
  /** Trips the brake; the first `trippedAt` stays. Notes the limit in force. */
  trip(action: string, now: number, brake: BrakeLimit): Promise<BrakeState>;
  /** Re-arms it: not tripped, window `windowStart` starts afresh with nothing counted. */
  rearm(action: string, windowStart: number, now: number): Promise<BrakeState>;
}

/** The limit of one action: at most `limit` destructive messages per rolling `windowMs`. */
export interface BrakeLimit {
  readonly limit: number;
  readonly windowMs: number;
}

/** A new window: where it starts, what the one before counted, and the limit in force. */
export interface BrakeRoll extends BrakeLimit {
  readonly windowStart: number;
  readonly previousUsed: number;
}

/** What the brake says about one destructive message. */
export type BrakeVerdict =
  | { readonly kind: 'pass' }
  | {
      readonly kind: 'hold';
      /** When the brake tripped; absent when the message is held because the store failed. */
      readonly trippedAt?: number;
      readonly why: string;
    };

/** Told when the brake trips or cannot reach its store (logs, metrics, the local run). */
export interface BrakeEvents {
  tripped?(action: string, state: BrakeState): void;
  storeFailed?(action: string, error: unknown): void;
}

/** A message with this attribute was let through by an operator (`brake release`): not counted. */
export const BRAKE_RELEASED_ATTRIBUTE = 'brakeReleasedAt';

/** Outcome code of a message the brake held (parked in the action's held queue). */
export const HELD_BY_BRAKE = 'HELD_BY_BRAKE' satisfies OwnCode;

/** Conditional writes one message may need when other instances write meanwhile. */
const MAX_ATTEMPTS = 6;

/** Start of the clock-aligned window holding `now`. */
export const windowStartOf = (now: number, windowMs: number): number =>
  Math.floor(now / windowMs) * windowMs;

/**
 * The most messages window `windowStart` may let through at `now`: the limit less the previous
 * window's count, weighted by the part of it the rolling window still covers (rounded up).
 */
export const maxUsedAt = (
  { limit, windowMs }: BrakeLimit,
  windowStart: number,
  previousUsed: number,
  now: number,
): number => {
  const covered = Math.min(1, Math.max(0, (windowStart + windowMs - now) / windowMs));
  return limit - Math.ceil(previousUsed * covered);
};

/** The rolling count at `now` (what `brake status` shows). */
export const rollingCount = (
  state: BrakeState | undefined,
  brake: BrakeLimit,
  now: number,
): number => {
  if (state === undefined) return 0;
  const current = windowStartOf(now, brake.windowMs);
  if (state.windowStart < current - brake.windowMs) return 0;
  if (state.windowStart < current) {
    return brake.limit - maxUsedAt(brake, current, state.used, now);
  }
  return state.used + brake.limit - maxUsedAt(brake, state.windowStart, state.previousUsed, now);
};

const describeSince = (trippedAt: number): string => new Date(trippedAt).toISOString();

/** The brake of one destructive action. One per function instance; the state is shared. */
export class MassDeleteBrake {
  readonly #action: string;
  readonly #store: BrakeStore;
  readonly #limit: BrakeLimit;
  readonly #now: () => number;
  readonly #events: BrakeEvents;
  /** The last state this instance saw; `absent` once the store said there is no item. */
  #known: BrakeState | 'absent' | undefined;

  constructor(
    action: string,
    store: BrakeStore,
    limit: BrakeLimit,
    options: { readonly now?: () => number; readonly events?: BrakeEvents } = {},
  ) {
    this.#action = action;
    this.#store = store;
    this.#limit = limit;
    this.#now = options.now ?? Date.now;
    this.#events = options.events ?? {};
  }

  get limit(): BrakeLimit {
    return this.#limit;
  }

  /**
   * Decides one destructive message: `count` on its first receive (it counts towards the
   * limit), `check` on a redelivery (counted before; held only if the brake has tripped since).
   * Never throws: when the store cannot be reached the message is held, not let through
   * uncounted.
   */
  async decide(mode: 'count' | 'check'): Promise<BrakeVerdict> {
    try {
      if (mode === 'check') {
        const state = await this.#store.read(this.#action);
        return state?.trippedAt === undefined ? { kind: 'pass' } : this.#held(state.trippedAt);
      }
      return await this.#count();
    } catch (error) {
      this.#events.storeFailed?.(this.#action, error);
      return {
        kind: 'hold',
        why: `the ${this.#action} brake could not read its count (${error instanceof Error ? error.name : 'error'}); held rather than let through uncounted`,
      };
    }
  }

  #held(trippedAt: number): BrakeVerdict {
    return {
      kind: 'hold',
      trippedAt,
      why: `the ${this.#action} brake tripped at ${describeSince(trippedAt)} (more than ${this.#limit.limit} in ${this.#limit.windowMs / 60_000} min); held until an operator releases or discards it`,
    };
  }

  async #trip(now: number): Promise<BrakeVerdict> {
    const state = await this.#store.trip(this.#action, now, this.#limit);
    this.#known = state;
    if (state.trippedAt === now) this.#events.tripped?.(this.#action, state);
    return this.#held(state.trippedAt ?? now);
  }

  async #count(): Promise<BrakeVerdict> {
    const now = this.#now();
    const current = windowStartOf(now, this.#limit.windowMs);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const known = this.#known;
      let write: BrakeWrite;
      if (known === 'absent' || (known !== undefined && known.windowStart < current)) {
        // A new window: the one before is what the state counted, if it was the last one.
        const from = known === 'absent' ? undefined : known;
        const previousUsed =
          from !== undefined && from.windowStart === current - this.#limit.windowMs ? from.used : 0;
        if (
          from?.trippedAt === undefined &&
          maxUsedAt(this.#limit, current, previousUsed, now) < 1
        ) {
          return this.#trip(now);
        }
        write = await this.#store.roll(this.#action, from?.windowStart, {
          ...this.#limit,
          windowStart: current,
          previousUsed,
        });
      } else {
        // Counting in the window this instance knows; unknown: guess a fresh one, learn if wrong.
        const windowStart = known?.windowStart ?? current;
        const previousUsed = known?.previousUsed ?? 0;
        const maxUsed = maxUsedAt(
          this.#limit,
          windowStart,
          previousUsed,
          Math.max(now, windowStart),
        );
        write = await this.#store.count(this.#action, { windowStart, previousUsed, maxUsed });
        const seen = write.state;
        if (
          !write.done &&
          seen !== undefined &&
          seen.trippedAt === undefined &&
          seen.windowStart === windowStart &&
          seen.previousUsed === previousUsed &&
          seen.used >= maxUsed
        ) {
          return this.#trip(now);
        }
      }
      this.#known = write.state ?? 'absent';
      if (write.done) return { kind: 'pass' };
      if (write.state?.trippedAt !== undefined) return this.#held(write.state.trippedAt);
    }
    throw new Error(`the ${this.#action} brake lost ${MAX_ATTEMPTS} conditional writes in a row`);
  }
}
