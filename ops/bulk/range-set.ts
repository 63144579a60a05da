/**
 * A set of non-negative integers kept as sorted, disjoint, non-adjacent inclusive ranges: the
 * messages a bulk load has sent are nearly contiguous, so the checkpoint stays a few ranges long
 * even with batches acknowledged out of order.
 */
export type Range = readonly [first: number, last: number];

export class RangeSet {
  #ranges: [number, number][] = [];

  static of(ranges: readonly Range[]): RangeSet {
    const set = new RangeSet();
    for (const [first, last] of ranges) for (let n = first; n <= last; n += 1) set.add(n);
    return set;
  }

  /** Index of the first range whose end is at or after n - 1 (binary search). */
  #find(n: number): number {
    let low = 0;
    let high = this.#ranges.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.#ranges[mid] as [number, number])[1] < n - 1) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  has(n: number): boolean {
    const range = this.#ranges[this.#find(n + 1)];
    return range !== undefined && range[0] <= n && n <= range[1];
  }

  add(n: number): void {
    const index = this.#find(n);
    const range = this.#ranges[index];
    if (range === undefined || range[0] > n + 1) {
      this.#ranges.splice(index, 0, [n, n]);
      return;
    }
    if (n >= range[0] && n <= range[1]) return;
    if (n === range[0] - 1) range[0] = n;
    else range[1] = n;
    const next = this.#ranges[index + 1];
    if (next !== undefined && next[0] === range[1] + 1) {
      range[1] = next[1];
      this.#ranges.splice(index + 1, 1);
    }
  }

  get size(): number {
    return this.#ranges.reduce((sum, [first, last]) => sum + last - first + 1, 0);
  }

  ranges(): Range[] {
    return this.#ranges.map(([first, last]) => [first, last] as const);
  }
}
