/**
 * A fake clock for code that cannot take one: replaces the global `Date` so that both
 * `Date.now()` and `new Date()` run `offsetMs` ahead of the real time. Patching `Date.now`
 * alone is not enough: Powertools Parameters stamps a cached value's expiry with `new Date()`
 * and checks it with `Date.now()`, so with only one of them shifted every read looks expired.
 */
export interface ShiftedClock {
  /** How far ahead of the real time the clock runs. */
  offsetMs: number;
  /** Puts the real `Date` back. */
  restore(): void;
}

export const installShiftedClock = (): ShiftedClock => {
  const RealDate = Date;
  const clock = { offsetMs: 0 };
  class ShiftedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + clock.offsetMs);
      // Any other form names its own instant: pass the arguments through unchanged.
      else super(...(args as [number]));
    }

    static override now(): number {
      return RealDate.now() + clock.offsetMs;
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
  return {
    get offsetMs() {
      return clock.offsetMs;
    },
    set offsetMs(value: number) {
      clock.offsetMs = value;
    },
    restore() {
      globalThis.Date = RealDate;
    },
  };
};
