import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../../lambdas/core/resilience/adaptive-rate';

describe('AdaptiveRate', () => {
  it('spaces requests at the ceiling: one slot every 1/rate seconds', () => {
    // Prepare
    const now = 0;
    const rate = new AdaptiveRate({ ceilingPerSecond: 4 }, () => now);

    // Act
    const waits = [1, 2, 3, 4].map(() => rate.reserve());

    // Assess
    expect(waits).toEqual([0, 250, 500, 750]);
  });

  it('halves at each throttle down to its floor, and grows back a step per success', () => {
    // Prepare
    const rate = new AdaptiveRate({ ceilingPerSecond: 10, floorFraction: 0.1 }, () => 0);

    // Act
    const halved = [1, 2, 3, 4, 5].map(() => {
      rate.throttled();
      return rate.rate;
    });
    for (let i = 0; i < 100; i++) rate.succeeded();

    // Assess
    expect(halved).toEqual([5, 2.5, 1.25, 1, 1]);
    expect(rate.rate).toBe(10);
  });

  it('refuses a slot later than the latest start, without reserving it', () => {
    // Prepare
    const rate = new AdaptiveRate({ ceilingPerSecond: 1 }, () => 0);
    rate.reserve();

    // Act
    const refused = rate.reserve(500);
    const next = rate.reserve();

    // Assess
    expect(refused).toBeUndefined();
    expect(next).toBe(1000);
  });

  it('never lets more requests start in any second than the ceiling and the burst', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 20, maxLength: 300 }),
        (ceiling, burst, gaps) => {
          // Prepare
          let now = 0;
          const rate = new AdaptiveRate({ ceilingPerSecond: ceiling, burst }, () => now);
          const starts: number[] = [];

          // Act: callers arrive after each gap and start when their slot comes.
          for (const gap of gaps) {
            now += gap;
            starts.push(now + (rate.reserve() ?? 0));
          }

          // Assess
          starts.sort((a, b) => a - b);
          for (const [i, start] of starts.entries()) {
            const inSecond = starts.slice(i).filter((t) => t < start + 1000).length;
            expect(inSecond).toBeLessThanOrEqual(ceiling + burst);
          }
        },
      ),
    );
  });
});

describe('AdaptiveRate.setCeiling', () => {
  it.each([
    ['raised while unthrottled: the new ceiling at once', [], 40, 40],
    ['raised while throttled once: half the new ceiling', ['throttled'], 40, 20],
    ['lowered: the new ceiling', [], 5, 5],
  ] as const)('%s', (_name, events, ceiling, expected) => {
    // Prepare
    const rate = new AdaptiveRate({ ceilingPerSecond: 10 }, () => 0);
    for (const _event of events) rate.throttled();

    // Act
    rate.setCeiling(ceiling);

    // Assess
    expect([rate.ceiling, rate.rate]).toEqual([ceiling, expected]);
  });
});
