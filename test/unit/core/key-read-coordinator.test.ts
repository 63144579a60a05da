import { describe, expect, it } from 'vitest';
import { KeyReadCoordinator } from '../../../lambdas/core/platform/key-read-coordinator';

/** A reader over a mutable "secret" that counts reads and can be held open. */
const reader = (initial: string) => {
  const state = { secret: initial, reads: [] as boolean[], release: () => {} };
  const read = (forceFetch: boolean): Promise<string> => {
    state.reads.push(forceFetch);
    const value = state.secret;
    return new Promise((resolve) => {
      state.release = () => resolve(value);
    });
  };
  return { state, read };
};

/** A coordinator that has read key-1, over a secret rotated since to key-2. */
const afterRotation = async () => {
  const { state, read } = reader('key-1');
  const coordinator = new KeyReadCoordinator(read);
  const first = coordinator.get();
  state.release();
  await first;
  state.secret = 'key-2';
  return { state, coordinator };
};

describe('KeyReadCoordinator', () => {
  it('lets concurrent first callers share one read', async () => {
    // Prepare
    const { state, read } = reader('key-1');
    const coordinator = new KeyReadCoordinator(read);

    // Act
    const pending = Array.from({ length: 10 }, () => coordinator.get());
    state.release();
    const keys = await Promise.all(pending);

    // Assess
    expect(keys).toEqual(Array(10).fill('key-1'));
    expect(state.reads).toEqual([false]);
  });

  it('reads again, forced, once however many callers report the same rejected key', async () => {
    // Prepare
    const { state, coordinator } = await afterRotation();

    // Act
    const refreshed = Array.from({ length: 10 }, () => coordinator.refresh('key-1'));
    state.release();
    const keys = await Promise.all(refreshed);

    // Assess
    expect(keys).toEqual(Array(10).fill('key-2'));
    expect(state.reads).toEqual([false, true]);
  });

  it('answers a late refresh with the key that already replaced the rejected one', async () => {
    // Prepare
    const { state, coordinator } = await afterRotation();
    const refreshed = coordinator.refresh('key-1');
    state.release();
    await refreshed;

    // Act
    const late = await coordinator.refresh('key-1');

    // Assess
    expect(late).toBe('key-2');
    expect(state.reads).toEqual([false, true]);
    expect(coordinator.current).toBe('key-2');
  });

  it('starts a new read after a failed one instead of repeating the failure', async () => {
    // Prepare
    let calls = 0;
    const coordinator = new KeyReadCoordinator(async () => {
      calls += 1;
      if (calls === 1) throw new Error('throttled');
      return 'key-1';
    });

    // Act
    const failed = await coordinator.get().catch((error: Error) => error.message);
    const key = await coordinator.get();

    // Assess
    expect(failed).toBe('throttled');
    expect(key).toBe('key-1');
    expect(calls).toBe(2);
  });
});
