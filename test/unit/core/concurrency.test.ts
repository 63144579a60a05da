import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../../lambdas/core/entry/concurrency';

/** A promise the test settles by hand. */
interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

const deferred = (): Deferred => {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((res) => {
    resolve = res;
  });
  return { promise, resolve };
};

/** Lets every queued microtask and the next macrotask run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Tasks that record how many of them run at the same time. */
const tracker = () => {
  let active = 0;
  let peak = 0;
  const gates: Deferred[] = [];
  const started: number[] = [];
  const task = (id: number) => async () => {
    active += 1;
    peak = Math.max(peak, active);
    started.push(id);
    const gate = deferred();
    gates.push(gate);
    try {
      await gate.promise;
      return id;
    } finally {
      active -= 1;
    }
  };
  return { task, gates, started, peak: () => peak, active: () => active };
};

describe('createLimiter', () => {
  it('runs at most `limit` tasks at once and starts waiting ones in arrival order', async () => {
    // Prepare
    const limit = createLimiter(2);
    const t = tracker();

    // Act
    const results = [1, 2, 3, 4, 5].map((id) => limit(t.task(id)));
    await settle();
    const startedFirst = [...t.started];
    while (t.gates.length > 0 || t.active() > 0) {
      t.gates.shift()?.resolve();
      await settle();
    }

    // Assess
    expect(startedFirst).toEqual([1, 2]);
    expect(t.started).toEqual([1, 2, 3, 4, 5]);
    expect(t.peak()).toBe(2);
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4, 5]);
  });

  it.each([0, 1, 2, 3, 4, 5])(
    'never exceeds the limit when a caller arrives %i microtasks after a task finished',
    async (depth) => {
      // Prepare: one slot, held by task 1, task 2 waiting.
      const limit = createLimiter(1);
      const t = tracker();
      const first = limit(t.task(1));
      const second = limit(t.task(2));
      await settle();

      // Act: finish task 1 and let a third caller arrive `depth` microtasks later, so that for
      // some depth it lands between the slot's release and the waiting task 2 resuming.
      t.gates[0]?.resolve();
      let third: Promise<number> | undefined;
      const arriveAfter = (hops: number): void =>
        queueMicrotask(() => {
          if (hops === 0) third = limit(t.task(3));
          else arriveAfter(hops - 1);
        });
      arriveAfter(depth);
      await settle();
      const peakAfterRelease = t.peak();
      while (t.active() > 0) {
        for (const gate of t.gates.splice(0)) gate.resolve();
        await settle();
      }

      // Assess
      expect(peakAfterRelease).toBe(1);
      expect(t.started).toEqual([1, 2, 3]);
      expect(await Promise.all([first, second, third])).toEqual([1, 2, 3]);
    },
  );

  it('frees the slot when a task fails and passes the failure to its caller', async () => {
    // Prepare
    const limit = createLimiter(1);
    const failure = new Error('boom');

    // Act
    const failed = limit(() => Promise.reject(failure));
    const next = limit(async () => 'ran');

    // Assess
    await expect(failed).rejects.toBe(failure);
    await expect(next).resolves.toBe('ran');
  });

  it('refuses a limit that would never run anything', () => {
    // Act
    const zero = () => createLimiter(0);
    const fraction = () => createLimiter(1.5);

    // Assess
    expect(zero).toThrow(RangeError);
    expect(fraction).toThrow(/positive integer/);
  });
});
