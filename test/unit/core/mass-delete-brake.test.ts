/**
 * The mass-delete brake's decision: a limit per rolling window shared by every instance, tripped
 * for good once exceeded, held messages never lost. The store is the in-memory one, whose writes
 * are atomic as DynamoDB's conditional writes are (the DynamoDB store runs the same contract
 * against moto: test/integration/ledger/brake-store.contract.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryBrakeStore } from '../../../lambdas/core/resilience/in-memory-brake-store';
import {
  type BrakeState,
  type BrakeStore,
  type BrakeVerdict,
  MassDeleteBrake,
  maxUsedAt,
  rollingCount,
  windowStartOf,
} from '../../../lambdas/core/resilience/mass-delete-brake';
import { failingStore } from '../support/failing-store';

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % HOUR);

/** A store that records every state a successful write left, and when the brake tripped. */
class WatchedStore implements BrakeStore {
  readonly inner = new InMemoryBrakeStore();
  readonly written: BrakeState[] = [];
  trips = 0;
  writesAfterTrip = 0;

  read(action: string) {
    return this.inner.read(action);
  }
  async count(action: string, expected: Parameters<BrakeStore['count']>[1]) {
    const write = await this.inner.count(action, expected);
    this.#saw(write);
    return write;
  }
  async roll(action: string, from: number | undefined, to: Parameters<BrakeStore['roll']>[2]) {
    const write = await this.inner.roll(action, from, to);
    this.#saw(write);
    return write;
  }
  async trip(action: string, now: number, brake: Parameters<BrakeStore['trip']>[2]) {
    this.trips += 1;
    return this.inner.trip(action, now, brake);
  }
  rearm(action: string, windowStart: number, now: number) {
    return this.inner.rearm(action, windowStart, now);
  }
  #saw(write: Awaited<ReturnType<BrakeStore['count']>>) {
    if (!write.done) return;
    this.written.push(write.state);
    if (this.trips > 0) this.writesAfterTrip += 1;
  }
}

const fleet = (instances: number, limit: number, store: BrakeStore = new InMemoryBrakeStore()) => {
  const clock = { now: T0 };
  const brakes = Array.from(
    { length: instances },
    () =>
      new MassDeleteBrake(
        'delete-user',
        store,
        { limit, windowMs: HOUR },
        { now: () => clock.now },
      ),
  );
  return { clock, brakes, store };
};

describe('MassDeleteBrake, one instance', () => {
  it('lets the limit through, trips on the next and holds every later one until re-armed', async () => {
    // Prepare
    const { clock, brakes, store } = fleet(1, 3);
    const [brake] = brakes;
    if (brake === undefined) throw new Error('no brake');

    // Act
    const first = [];
    for (let i = 0; i < 5; i++) first.push((await brake.decide('count')).kind);
    clock.now += 5 * HOUR; // a quiet day later: still tripped
    const later = await brake.decide('count');
    const redelivered = await brake.decide('check');
    await store.rearm('delete-user', windowStartOf(clock.now, HOUR), clock.now);
    const afterRearm = await brake.decide('count');

    // Assess
    expect(first).toEqual(['pass', 'pass', 'pass', 'hold', 'hold']);
    expect(later).toMatchObject({ kind: 'hold', trippedAt: T0 });
    expect(redelivered).toMatchObject({ kind: 'hold', trippedAt: T0 });
    expect(afterRearm.kind).toBe('pass');
  });

  it("weighs the previous window's count into the rolling count", async () => {
    // Prepare: 8 of 10 in the last minutes of one window
    const { clock, brakes, store } = fleet(1, 10);
    const [brake] = brakes;
    if (brake === undefined) throw new Error('no brake');
    clock.now = T0 + HOUR - 60_000;
    for (let i = 0; i < 8; i++) await brake.decide('count');

    // Act: a quarter into the next window, 3/4 of those 8 (6) still count
    clock.now = T0 + HOUR + HOUR / 4;
    const verdicts: BrakeVerdict['kind'][] = [];
    for (let i = 0; i < 5; i++) verdicts.push((await brake.decide('count')).kind);

    // Assess
    expect(maxUsedAt({ limit: 10, windowMs: HOUR }, T0 + HOUR, 8, clock.now)).toBe(4);
    expect(verdicts).toEqual(['pass', 'pass', 'pass', 'pass', 'hold']);
    expect(
      rollingCount(await store.read('delete-user'), { limit: 10, windowMs: HOUR }, clock.now),
    ).toBe(10);
  });

  it('does not trip at a steady rate just under the limit', async () => {
    // Prepare: 9 per hour against a limit of 10, evenly spread over 5 hours
    const { clock, brakes } = fleet(1, 10);
    const [brake] = brakes;
    if (brake === undefined) throw new Error('no brake');

    // Act
    const verdicts: string[] = [];
    for (let i = 0; i < 45; i++) {
      clock.now = T0 + Math.floor((i * HOUR) / 9);
      verdicts.push((await brake.decide('count')).kind);
    }

    // Assess
    expect(verdicts.every((kind) => kind === 'pass')).toBe(true);
  });

  it('holds rather than lets through uncounted when its store fails', async () => {
    // Prepare
    const failing = failingStore<BrakeStore>('down');
    const failures: string[] = [];
    const brake = new MassDeleteBrake(
      'delete-user',
      failing,
      { limit: 10, windowMs: HOUR },
      { events: { storeFailed: (action) => failures.push(action) } },
    );

    // Act
    const counted = await brake.decide('count');
    const checked = await brake.decide('check');

    // Assess
    // Held, though the brake did not trip: nothing says when it would have.
    expect(counted).toEqual({
      kind: 'hold',
      why: expect.stringContaining('could not read its count'),
    });
    expect(checked.kind).toBe('hold');
    expect(failures).toEqual(['delete-user', 'delete-user']);
  });
});

describe('MassDeleteBrake, many instances sharing one store', () => {
  const scenario = fc.record({
    instances: fc.integer({ min: 1, max: 4 }),
    limit: fc.integer({ min: 1, max: 12 }),
    // Minutes after T0 of each destructive message, over up to three windows.
    minutes: fc.array(fc.integer({ min: 0, max: 180 }), { minLength: 1, maxLength: 40 }),
    picks: fc.infiniteStream(fc.nat()),
  });

  it('whatever the interleaving: at most the limit per window, the rest held, none lost', async () => {
    await fc.assert(
      fc.asyncProperty(
        scenario,
        fc.scheduler(),
        async ({ instances, limit, minutes, picks }, s) => {
          // Prepare: every store call waits for the scheduler, so writes of instances interleave
          const watched = new WatchedStore();
          const scheduled: BrakeStore = {
            read: (a) => s.schedule(watched.read(a)),
            count: (a, e) => s.schedule(Promise.resolve()).then(() => watched.count(a, e)),
            roll: (a, f, t) => s.schedule(Promise.resolve()).then(() => watched.roll(a, f, t)),
            trip: (a, n, b) => s.schedule(Promise.resolve()).then(() => watched.trip(a, n, b)),
            rearm: (a, w, n) => watched.rearm(a, w, n),
          };
          const { clock, brakes } = fleet(instances, limit, scheduled);
          const times = [...minutes].sort((a, b) => a - b).map((m) => T0 + m * 60_000);
          const pickIterator = picks[Symbol.iterator]();

          // Act: messages arrive in time order; their store writes interleave
          const verdicts = times.map((time) => {
            clock.now = time;
            const brake = brakes[(pickIterator.next().value ?? 0) % brakes.length];
            if (brake === undefined) throw new Error('no brake');
            return brake.decide('count');
          });
          const kinds = (await s.waitFor(Promise.all(verdicts))).map((v) => v.kind);

          // Assess
          const passed = kinds.filter((k) => k === 'pass').length;
          const held = kinds.filter((k) => k === 'hold').length;
          expect(passed + held).toBe(times.length);
          expect(watched.written.length).toBe(passed);
          expect(watched.written.every((state) => state.used <= limit)).toBe(true);
          // Tripped is final: nothing is counted after the first trip.
          expect(watched.writesAfterTrip).toBe(0);
          if (times.length <= limit) expect(held).toBe(0);
          if (held > 0) expect((await watched.read('delete-user'))?.trippedAt).toBeDefined();
        },
      ),
      { numRuns: 150 },
    );
  });
});
