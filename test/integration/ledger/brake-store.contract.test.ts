/**
 * The mass-delete brake store contract, run against the in-memory store (local run, the unit
 * properties) and the DynamoDB store on moto (real SDK calls, real condition expressions, the
 * item returned when a condition refuses).
 */
import { describe, expect, it } from 'vitest';
import { DynamoDbBrakeStore } from '../../../lambdas/core/aws/dynamodb-brake-store';
import { InMemoryBrakeStore } from '../../../lambdas/core/resilience/in-memory-brake-store';
import {
  type BrakeStore,
  MassDeleteBrake,
} from '../../../lambdas/core/resilience/mass-delete-brake';
import { ledgerTableStores } from '../../support/ledger-table';

const stores = ledgerTableStores<BrakeStore>(
  () => new InMemoryBrakeStore(),
  (access) => new DynamoDbBrakeStore(access),
);

const HOUR = 3_600_000;
/** The limit the functions note in the item when they start a window or trip. */
const LIMIT = { limit: 7, windowMs: HOUR };

describe.each(stores)('brake store contract: %s', (_name, makeStore) => {
  it('knows no state for an action it never counted, and refuses to count without a window', async () => {
    // Prepare
    const store = await makeStore();

    // Act
    const refused = await store.count('delete-user', {
      windowStart: 0,
      previousUsed: 0,
      maxUsed: 5,
    });

    // Assess
    expect(await store.read('delete-user')).toBeUndefined();
    expect(refused).toEqual({ done: false, state: undefined });
  });

  it('starts a window, counts up to maxUsed, and returns the state that refused', async () => {
    // Prepare
    const store = await makeStore();

    // Act
    const rolled = await store.roll('delete-user', undefined, {
      ...LIMIT,
      windowStart: HOUR,
      previousUsed: 3,
    });
    const second = await store.count('delete-user', {
      windowStart: HOUR,
      previousUsed: 3,
      maxUsed: 2,
    });
    const third = await store.count('delete-user', {
      windowStart: HOUR,
      previousUsed: 3,
      maxUsed: 2,
    });
    const wrongWindow = await store.count('delete-user', {
      windowStart: 0,
      previousUsed: 3,
      maxUsed: 9,
    });

    // Assess
    expect(rolled).toEqual({
      done: true,
      state: { ...LIMIT, windowStart: HOUR, used: 1, previousUsed: 3 },
    });
    expect(second).toEqual({
      done: true,
      state: { ...LIMIT, windowStart: HOUR, used: 2, previousUsed: 3 },
    });
    expect(third).toEqual({
      done: false,
      state: { ...LIMIT, windowStart: HOUR, used: 2, previousUsed: 3 },
    });
    expect(wrongWindow.done).toBe(false);
    expect(await store.read('delete-campaign-record')).toBeUndefined();
  });

  it('rolls only from the window it names', async () => {
    // Prepare
    const store = await makeStore();
    await store.roll('delete-user', undefined, { ...LIMIT, windowStart: HOUR, previousUsed: 0 });

    // Act
    const again = await store.roll('delete-user', undefined, {
      ...LIMIT,
      windowStart: HOUR,
      previousUsed: 0,
    });
    const stale = await store.roll('delete-user', 0, {
      ...LIMIT,
      windowStart: 2 * HOUR,
      previousUsed: 1,
    });
    const next = await store.roll('delete-user', HOUR, {
      ...LIMIT,
      windowStart: 2 * HOUR,
      previousUsed: 1,
    });

    // Assess
    expect([again.done, stale.done, next.done]).toEqual([false, false, true]);
    expect(next.state).toEqual({ ...LIMIT, windowStart: 2 * HOUR, used: 1, previousUsed: 1 });
  });

  it('trips once (the first time stays), refuses every count and roll, and re-arms afresh', async () => {
    // Prepare
    const store = await makeStore();
    await store.roll('delete-user', undefined, { ...LIMIT, windowStart: HOUR, previousUsed: 0 });

    // Act
    const tripped = await store.trip('delete-user', 5_000, LIMIT);
    const trippedAgain = await store.trip('delete-user', 9_000, LIMIT);
    const count = await store.count('delete-user', {
      windowStart: HOUR,
      previousUsed: 0,
      maxUsed: 9,
    });
    const roll = await store.roll('delete-user', HOUR, {
      ...LIMIT,
      windowStart: 2 * HOUR,
      previousUsed: 1,
    });
    const rearmed = await store.rearm('delete-user', 2 * HOUR, 10_000);

    // Assess
    expect(tripped.trippedAt).toBe(5_000);
    expect(trippedAgain.trippedAt).toBe(5_000);
    expect(count).toMatchObject({ done: false, state: { trippedAt: 5_000 } });
    expect(roll).toMatchObject({ done: false, state: { trippedAt: 5_000 } });
    // The re-armed brake still says which limit the functions count against.
    expect(rearmed).toEqual({
      ...LIMIT,
      windowStart: 2 * HOUR,
      used: 0,
      previousUsed: 0,
      rearmedAt: 10_000,
    });
    expect(await store.read('delete-user')).toEqual(rearmed);
  });

  it('trips an action it never counted', async () => {
    // Prepare
    const store = await makeStore();

    // Act
    await store.trip('delete-user', 7, LIMIT);

    // Assess
    expect(await store.read('delete-user')).toEqual({
      windowStart: 0,
      used: 0,
      previousUsed: 0,
      trippedAt: 7,
      ...LIMIT,
    });
  });

  it('lets exactly the limit through four instances racing, and holds the rest', async () => {
    // Prepare
    const store = await makeStore();
    const clock = { now: 10 * HOUR + 60_000 };
    const brakes = Array.from(
      { length: 4 },
      () =>
        new MassDeleteBrake(
          'delete-user',
          store,
          { limit: 7, windowMs: HOUR },
          { now: () => clock.now },
        ),
    );

    // Act
    const verdicts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => brakes[i % brakes.length]?.decide('count')),
    );

    // Assess
    const kinds = verdicts.map((v) => v?.kind);
    expect(kinds.filter((k) => k === 'pass')).toHaveLength(7);
    expect(kinds.filter((k) => k === 'hold')).toHaveLength(13);
    expect(await store.read('delete-user')).toMatchObject({ used: 7, trippedAt: clock.now });
  });
});
