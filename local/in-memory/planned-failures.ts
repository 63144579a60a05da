/**
 * The next calls of an in-memory fake that fail on purpose (its `failNext…(count)`): `set`
 * sets how many, `take` says whether this call is one of them.
 */
export class PlannedFailures {
  #left = 0;

  /** @param method the fake's method that sets them, named in a bad count's error */
  constructor(readonly method: string) {}

  set(count: number): void {
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(`${this.method} needs a whole number >= 0, got ${count}`);
    }
    this.#left = count;
  }

  take(): boolean {
    if (this.#left === 0) return false;
    this.#left -= 1;
    return true;
  }
}
