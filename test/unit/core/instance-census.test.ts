import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryCensusStore } from '../../../lambdas/core/resilience/in-memory-census-store';
import { type CensusStore, InstanceCensus } from '../../../lambdas/core/resilience/instance-census';

const SETTINGS = { ceilingPerSecond: 50, floorPerSecond: 2, checkInMs: 5_000, activeMs: 15_000 };

/** Instances on one clock and one store, as the functions of a deployment share the table. */
const fleet = (store: CensusStore, count: number, clock: { now: number }) =>
  Array.from(
    { length: count },
    (_, i) =>
      new InstanceCensus('realtime', store, SETTINGS, { now: () => clock.now, id: `i${i}` }),
  );

/** Each instance asks for its share (starting a check-in when due) and waits for the answer. */
const round = async (instances: readonly InstanceCensus[]): Promise<number[]> => {
  for (const instance of instances) {
    instance.share();
    await instance.settled();
  }
  return instances.map((instance) => instance.share());
};

describe('InstanceCensus', () => {
  it('paces at the safe floor until its first check-in answers, then takes the whole ceiling alone', async () => {
    // Prepare
    const clock = { now: 0 };
    const [alone] = fleet(new InMemoryCensusStore(), 1, clock);

    // Act
    const before = alone?.share();
    await alone?.settled();
    const after = alone?.share();

    // Assess
    expect([before, after]).toEqual([2, 50]);
  });

  it('splits the ceiling evenly once every instance has checked in, and regrows as they go quiet', async () => {
    // Prepare
    const clock = { now: 0 };
    const store = new InMemoryCensusStore();
    const [busy, ...others] = fleet(store, 5, clock);
    if (busy === undefined) throw new Error('no instance');

    // Act: the first round's early instances have not seen the later ones; the next has.
    await round([busy, ...others]);
    clock.now += SETTINGS.checkInMs;
    const shared = await round([busy, ...others]);
    clock.now += 16_000; // the others stop calling; only `busy` checks in again
    const [alone] = await round([busy]);

    // Assess
    expect(shared).toEqual([10, 10, 10, 10, 10]);
    expect(alone).toBe(50);
  });

  it('falls back to the floor and reports when a check-in fails', async () => {
    // Prepare
    const failures: string[] = [];
    const failing: CensusStore = {
      checkIn: async () => {
        throw new Error('ProvisionedThroughputExceededException');
      },
    };
    const census = new InstanceCensus('provisioning', failing, SETTINGS, {
      now: () => 0,
      events: { failed: (service) => failures.push(service) },
    });

    // Act
    census.share();
    await census.settled();

    // Assess
    expect(census.share()).toBe(2);
    expect(failures).toEqual(['provisioning']);
  });

  it('keeps the instances together within the ceiling once each has checked in since the last change', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Per step: which instances are busy (ask for their share), and how much time passes.
        fc.array(
          fc.record({
            busy: fc.uniqueArray(fc.integer({ min: 0, max: 7 }), { minLength: 1 }),
            advanceMs: fc.integer({ min: 0, max: 20_000 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (steps) => {
          // Prepare
          const clock = { now: 0 };
          const instances = fleet(new InMemoryCensusStore(), 8, clock);
          const pick = (ids: readonly number[]) =>
            ids.flatMap((id) => (instances[id] ? [instances[id]] : []));

          // Act: the steps, then two check-in rounds of the last step's busy instances (in the
          // first, the early ones have not yet seen the later ones).
          for (const step of steps) {
            clock.now += step.advanceMs;
            await round(pick(step.busy));
          }
          const last = steps.at(-1)?.busy ?? [];
          clock.now += SETTINGS.checkInMs;
          await round(pick(last));
          clock.now += SETTINGS.checkInMs;
          const shares = await round(pick(last));

          // Assess
          const total = shares.reduce((sum, share) => sum + share, 0);
          expect(total).toBeLessThanOrEqual(SETTINGS.ceilingPerSecond + 1e-9);
          for (const share of shares) expect(share).toBeGreaterThanOrEqual(SETTINGS.floorPerSecond);
        },
      ),
    );
  });
});
