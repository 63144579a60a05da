import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RangeSet } from '../../../../ops/bulk/range-set';

describe('RangeSet', () => {
  it('holds exactly the numbers added, as the fewest sorted ranges, in any order', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(200), { maxLength: 300 }), (numbers) => {
        // Act
        const set = new RangeSet();
        for (const n of numbers) set.add(n);

        // Assess: same members as a plain Set, ranges disjoint and not adjacent.
        const model = new Set(numbers);
        for (let n = 0; n <= 201; n += 1) expect(set.has(n)).toBe(model.has(n));
        expect(set.size).toBe(model.size);
        const ranges = set.ranges();
        for (const [index, [first, last]] of ranges.entries()) {
          expect(first).toBeLessThanOrEqual(last);
          const next = ranges[index + 1];
          if (next) expect(next[0]).toBeGreaterThan(last + 1);
        }
        expect(RangeSet.of(ranges).ranges()).toEqual(ranges);
      }),
    );
  });
});
