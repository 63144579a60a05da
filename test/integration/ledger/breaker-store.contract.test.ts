/**
 * The breaker store contract, run against the in-memory store (local run) and the DynamoDB
 * store on moto (real SDK calls, real condition expressions).
 */
import { describe, expect, it } from 'vitest';
import { DynamoDbBreakerStore } from '../../../lambdas/core/aws/dynamodb-breaker-store';
import type { BreakerStore } from '../../../lambdas/core/resilience/circuit-breaker';
import { InMemoryBreakerStore } from '../../../lambdas/core/resilience/in-memory-breaker-store';
import { ledgerTableStores } from '../../support/ledger-table';

const stores = ledgerTableStores<BreakerStore>(
  () => new InMemoryBreakerStore(),
  (access) => new DynamoDbBreakerStore(access),
);

describe.each(stores)('breaker store contract: %s', (_name, makeStore) => {
  it('knows no state for a service it never opened (closed)', async () => {
    // Prepare
    const store = await makeStore();

    // Act / Assess
    expect(await store.read('realtime')).toBeUndefined();
  });

  it('opens, keeps the first opening time across re-openings, and closes', async () => {
    // Prepare
    const store = await makeStore();

    // Act
    await store.open('realtime', 31_000, 1_000);
    await store.open('realtime', 91_000, 61_000);
    const reopened = await store.read('realtime');
    await store.close('realtime');

    // Assess
    expect(reopened).toEqual({ openUntil: 91_000, openedAt: 1_000 });
    expect(await store.read('realtime')).toBeUndefined();
    expect(await store.read('provisioning')).toBeUndefined();
  });

  it('gives the probe lease to one claimant, only after the cool-down, and again once it expires', async () => {
    // Prepare
    const store = await makeStore();
    await store.open('provisioning', 30_000, 0);

    // Act
    const early = await store.claimProbe('provisioning', 29_999, 40_000);
    const first = await store.claimProbe('provisioning', 30_000, 40_000);
    const second = await store.claimProbe('provisioning', 30_001, 40_001);
    const afterLease = await store.claimProbe('provisioning', 40_001, 50_001);

    // Assess
    expect([early, first, second, afterLease]).toEqual([false, true, false, true]);
    expect(await store.read('provisioning')).toMatchObject({ probeUntil: 50_001 });
  });

  it('clears a held probe lease when the breaker opens again', async () => {
    // Prepare
    const store = await makeStore();
    await store.open('realtime', 30_000, 0);
    await store.claimProbe('realtime', 30_000, 40_000);

    // Act
    await store.open('realtime', 60_000, 31_000);
    const claim = await store.claimProbe('realtime', 60_000, 70_000);

    // Assess
    expect(claim).toBe(true);
  });
});
