/**
 * The kit's in-memory API key source: the deployed source's cache and single-flight refresh
 * over an in-memory secret (the local run), and a warm source whose stored key a test sets
 * (the client tests).
 */
import { describe, expect, it } from 'vitest';
import { InMemoryApiKeySource, InMemorySecretStore } from '../../../testkit';

/** A hand-driven clock for the cache age. */
const manualClock = (start = 0) => {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

/** A source that has served 'old', over a store rotated since to 'new'. */
const afterRotation = async () => {
  const store = new InMemorySecretStore('old');
  const source = new InMemoryApiKeySource({ store });
  await source.getKey();
  store.rotate('new');
  return { store, source };
};

describe('InMemoryApiKeySource', () => {
  it('serves the key from cache within maxAge and reads the store again after it', async () => {
    // Prepare
    const store = new InMemorySecretStore('key-1');
    const clock = manualClock();
    const source = new InMemoryApiKeySource({ store, maxAgeSeconds: 900, now: clock.now });
    await source.getKey();
    store.rotate('key-2');

    // Act
    clock.advance(899_999);
    const cached = await source.getKey();
    clock.advance(1);
    const fresh = await source.getKey();

    // Assess
    expect(cached).toBe('key-1');
    expect(fresh).toBe('key-2');
    expect(store.reads).toBe(2);
    expect(store.version).toBe(2);
  });

  it('refreshes once for any number of callers rejected with the same key (single flight)', async () => {
    // Prepare
    const { store, source } = await afterRotation();

    // Act
    const keys = await Promise.all(Array.from({ length: 5 }, () => source.refreshKey('old')));

    // Assess
    expect(keys).toEqual(['new', 'new', 'new', 'new', 'new']);
    expect(store.reads).toBe(2);
  });

  it('does not read the store when the rejected key was already replaced', async () => {
    // Prepare
    const { store, source } = await afterRotation();
    await source.refreshKey('old');

    // Act
    const key = await source.refreshKey('old');

    // Assess
    expect(key).toBe('new');
    expect(store.reads).toBe(2);
  });

  it('fails like Secrets Manager when the store is down, and recovers afterwards', async () => {
    // Prepare
    const store = new InMemorySecretStore('key');
    const source = new InMemoryApiKeySource({ store });
    store.failWith = new Error('throttled');

    // Act
    const failing = source.getKey();
    await expect(failing).rejects.toThrow('throttled');
    store.failWith = undefined;
    const key = await source.getKey();

    // Assess
    expect(key).toBe('key');
  });

  it('refuses a max age outside 1..3600 seconds', () => {
    // Prepare
    const store = new InMemorySecretStore('key');

    // Act
    const tooLong = () => new InMemoryApiKeySource({ store, maxAgeSeconds: 3601 });
    const zero = () => new InMemoryApiKeySource({ store, maxAgeSeconds: 0 });

    // Assess
    expect(tooLong).toThrow(RangeError);
    expect(zero).toThrow(RangeError);
  });
});

describe('InMemoryApiKeySource from a key (a warm container)', () => {
  it('serves the key it was made with without another read, until a refresh reads the stored key', async () => {
    // Prepare
    const source = new InMemoryApiKeySource('old');
    source.storedKey = 'new';

    // Act
    const before = await source.getKey();
    const refreshed = await source.refreshKey('old');
    const after = await source.getKey();

    // Assess
    expect([before, refreshed, after]).toEqual(['old', 'new', 'new']);
    expect(source.getKeyCalls).toBe(2);
    expect(source.refreshCalls).toEqual(['old']);
    expect(source.store.reads).toBe(2);
  });

  it('keeps its key when refreshed with a key it no longer serves', async () => {
    // Prepare
    const source = new InMemoryApiKeySource('current');
    source.storedKey = 'next';

    // Act
    const key = await source.refreshKey('stale');

    // Assess
    expect(key).toBe('current');
    expect(source.store.reads).toBe(1);
  });

  it('fails every call while the source itself is broken, even with a key in cache', async () => {
    // Prepare
    const source = new InMemoryApiKeySource('key');
    source.failWith = new Error('client misconfigured');

    // Act
    const served = source.getKey();
    const refreshed = source.refreshKey('key');

    // Assess
    await expect(served).rejects.toThrow('client misconfigured');
    await expect(refreshed).rejects.toThrow('client misconfigured');
  });

  it('still serves the cached key while only the store is down', async () => {
    // Prepare
    const source = new InMemoryApiKeySource('key');
    source.store.failWith = new Error('Secrets Manager throttled');

    // Act
    const served = await source.getKey();

    // Assess
    expect(served).toBe('key');
  });
});
