/**
 * Paces one instance's requests to one platform service: never above its share of the
 * configured ceiling, halved at each 429 / 503 and grown back a step per success (AIMD), so a
 * backlog draining after an outage does not turn into a storm of 429s.
 */
export interface AdaptiveRateSettings {
  /** This instance's share of the service's ceiling, in requests per second. */
  readonly ceilingPerSecond: number;
  /** The rate never drops below this fraction of the ceiling. @default 0.05 */
  readonly floorFraction?: number;
  /** Requests that may go at once after a quiet spell. @default 1 */
  readonly burst?: number;
}

export class AdaptiveRate {
  readonly #floorFraction: number;
  readonly #burst: number;
  #ceiling: number;
  #floor: number;
  readonly #now: () => number;
  #rate: number;
  /** GCRA's theoretical arrival time: when the next request is due, in epoch ms. */
  #due = 0;

  constructor(settings: AdaptiveRateSettings, now: () => number = Date.now) {
    if (!(settings.ceilingPerSecond > 0)) {
      throw new Error(`ceilingPerSecond must be positive, got ${settings.ceilingPerSecond}`);
    }
    this.#ceiling = settings.ceilingPerSecond;
    this.#floorFraction = settings.floorFraction ?? 0.05;
    this.#floor = this.#ceiling * this.#floorFraction;
    this.#burst = Math.max(1, settings.burst ?? 1);
    this.#rate = this.#ceiling;
    this.#now = now;
  }

  /** This instance's share of the ceiling now. */
  get ceiling(): number {
    return this.#ceiling;
  }

  /**
   * A new share of the service's ceiling (more or fewer instances are calling it). The rate
   * keeps its place between floor and ceiling: a throttled instance stays throttled.
   */
  setCeiling(perSecond: number): void {
    if (!(perSecond > 0)) throw new Error(`ceilingPerSecond must be positive, got ${perSecond}`);
    if (perSecond === this.#ceiling) return;
    this.#rate = (this.#rate / this.#ceiling) * perSecond;
    this.#ceiling = perSecond;
    this.#floor = perSecond * this.#floorFraction;
  }

  /** Requests per second this instance allows itself now. */
  get rate(): number {
    return this.#rate;
  }

  /**
   * Reserves the next slot and returns how long to wait for it (ms), or undefined without
   * reserving when the slot is later than `latestStart`: the message is rescheduled instead.
   */
  reserve(latestStart: number = Number.POSITIVE_INFINITY): number | undefined {
    const now = this.#now();
    const interval = 1000 / this.#rate;
    const slot = Math.max(this.#due, now - (this.#burst - 1) * interval);
    if (slot > latestStart) return undefined;
    this.#due = Math.max(slot, now) + interval;
    return Math.max(0, slot - now);
  }

  /** The platform asked us to slow down (429, or 503 with Retry-After). */
  throttled(): void {
    this.#rate = Math.max(this.#floor, this.#rate / 2);
  }

  /** An answer that was not a throttle: one additive step back towards the ceiling. */
  succeeded(): void {
    this.#rate = Math.min(this.#ceiling, this.#rate + this.#ceiling / 50);
  }
}
