/**
 * The census store contract, run against the in-memory store (local run) and the DynamoDB
 * store on moto (real SDK calls, a real condition on the forgotten check-ins).
 */
import { describe, expect, it } from 'vitest';
import { DynamoDbCensusStore } from '../../../lambdas/core/aws/dynamodb-census-store';
import { InMemoryCensusStore } from '../../../lambdas/core/resilience/in-memory-census-store';
import type { CensusStore } from '../../../lambdas/core/resilience/instance-census';
import { ledgerTableStores } from '../../support/ledger-table';

const stores = ledgerTableStores<CensusStore>(
  () => new InMemoryCensusStore(),
  (access) => new DynamoDbCensusStore(access),
);

const NONE = new Map<string, number>();

/** `instance` checks in with the realtime census at `now`, forgetting `forget`. */
const realtimeCheckIn = (store: CensusStore, instance: string, now: number, forget = NONE) =>
  store.checkIn({ service: 'realtime', instance, now, forget });

describe.each(stores)('census store contract: %s', (_name, makeStore) => {
  it('returns every instance of the service with its last check-in, and no other service', async () => {
    // Prepare
    const store = await makeStore();

    // Act
    await realtimeCheckIn(store, 'a', 1_000);
    await store.checkIn({ service: 'provisioning', instance: 'p', now: 1_500, forget: NONE });
    await realtimeCheckIn(store, 'b', 2_000);
    const seen = await realtimeCheckIn(store, 'a', 3_000);

    // Assess
    expect(Object.fromEntries(seen)).toEqual({ a: 3_000, b: 2_000 });
  });

  it('forgets a quiet instance only while its check-in is still the one seen', async () => {
    // Prepare
    const store = await makeStore();
    await realtimeCheckIn(store, 'quiet', 1_000);
    await realtimeCheckIn(store, 'back', 1_000);
    await realtimeCheckIn(store, 'back', 30_000); // checked in again since seen quiet

    // Act
    const seen = await realtimeCheckIn(
      store,
      'me',
      31_000,
      new Map([
        ['quiet', 1_000],
        ['back', 1_000],
      ]),
    );

    // Assess: a forget that would lose `back` keeps both; the next one forgets `quiet` alone.
    expect(Object.fromEntries(seen)).toEqual({ quiet: 1_000, back: 30_000, me: 31_000 });
    const after = await realtimeCheckIn(store, 'me', 32_000, new Map([['quiet', 1_000]]));
    expect(Object.fromEntries(after)).toEqual({ back: 30_000, me: 32_000 });
  });
});
