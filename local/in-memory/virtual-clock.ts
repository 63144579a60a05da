/**
 * Time for the local queues. Visibility timeouts are minutes long (6 × the function timeout);
 * instead of waiting, the runner moves this clock forward when only invisible messages remain,
 * so a run with redeliveries still takes seconds.
 */
export class VirtualClock {
  #now: number;

  constructor(start: number = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Moves forward to `epochMs`; never backwards. */
  advanceTo(epochMs: number): void {
    this.#now = Math.max(this.#now, epochMs);
  }

  advanceBy(ms: number): void {
    if (ms < 0) throw new RangeError('the clock only moves forward');
    this.#now += ms;
  }
}
