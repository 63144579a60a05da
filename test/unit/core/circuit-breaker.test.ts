import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../../lambdas/core/pipeline/outcome';
import {
  type BreakerStore,
  CircuitBreaker,
  DEFAULT_BREAKER_SETTINGS,
  isOutageSignal,
} from '../../../lambdas/core/resilience/circuit-breaker';
import { InMemoryBreakerStore } from '../../../lambdas/core/resilience/in-memory-breaker-store';
import { failingStore } from '../support/failing-store';

const down: Outcome = {
  category: 'retryable',
  code: 'HTTP_503',
  httpStatus: 503,
  message: '',
  attempts: 1,
};
const refused: Outcome = { category: 'retryable', code: 'NETWORK_ERROR', message: '', attempts: 1 };
const answered: Outcome = {
  category: 'success',
  code: 'SUCCESS',
  httpStatus: 200,
  message: '',
  attempts: 1,
};
const throttled: Outcome = {
  category: 'retryable',
  code: 'HTTP_429',
  httpStatus: 429,
  message: '',
  attempts: 1,
};
const failedStatus: Outcome = {
  category: 'retryable',
  code: 'FAILED',
  httpStatus: 200,
  message: '',
  attempts: 1,
};

/** Breakers of several instances sharing one store, on one virtual clock. */
const fleet = (instances: number, store: BreakerStore = new InMemoryBreakerStore()) => {
  const clock = { now: 1_000_000 };
  const changes: string[] = [];
  const breakers = Array.from(
    { length: instances },
    () =>
      new CircuitBreaker('realtime', store, {
        now: () => clock.now,
        events: { changed: (_service, state) => changes.push(state) },
      }),
  );
  return { clock, changes, breakers, store };
};

/** One request through a breaker: asks, and when allowed, records how it ended. */
const request = async (breaker: CircuitBreaker, outcome: Outcome): Promise<boolean> => {
  const permit = await breaker.permit();
  if (permit.kind === 'hold') return false;
  await breaker.record(outcome, permit);
  return true;
};

describe('what counts as an outage', () => {
  it.each([
    [down, true],
    [refused, true],
    [{ ...refused, code: 'TIMEOUT' as const }, true],
    [throttled, false],
    [failedStatus, false],
    [answered, false],
  ])('%o → %s', (outcome, signal) => {
    // Act / Assess
    expect(isOutageSignal(outcome)).toBe(signal);
  });
});

describe('CircuitBreaker', () => {
  it('opens after a run of outage failures and holds messages for the cool-down', async () => {
    // Prepare
    const { clock, breakers, changes } = fleet(1);
    const [breaker] = breakers as [CircuitBreaker];

    // Act
    for (let i = 0; i < DEFAULT_BREAKER_SETTINGS.failureThreshold; i++)
      await request(breaker, down);
    clock.now += 10_000;
    const permit = await breaker.permit();

    // Assess
    expect(changes).toEqual(['open']);
    expect(permit).toEqual({ kind: 'hold', retryAfterMs: 20_000, downForMs: 10_000 });
    expect(breaker.isOpen).toBe(true);
  });

  it('opens once when another failure ends while the shared open is being written', async () => {
    // Prepare: a store whose writes answer only when told to.
    const inner = new InMemoryBreakerStore();
    let finishWrites = (): void => {};
    const written = new Promise<void>((resolve) => {
      finishWrites = resolve;
    });
    const slowStore: BreakerStore = {
      read: (service) => inner.read(service),
      claimProbe: (service, now, until) => inner.claimProbe(service, now, until),
      close: (service) => inner.close(service),
      open: async (service, until, now) => {
        await written;
        await inner.open(service, until, now);
      },
    };
    const { breakers, changes } = fleet(1, slowStore);
    const [breaker] = breakers as [CircuitBreaker];
    const permits = await Promise.all(
      Array.from({ length: DEFAULT_BREAKER_SETTINGS.failureThreshold + 1 }, () => breaker.permit()),
    );

    // Act: the threshold's failure starts the write; one more ends before it is done.
    const records = permits.map((permit) => breaker.record(down, permit));
    finishWrites();
    await Promise.all(records);

    // Assess
    expect(changes).toEqual(['open']);
  });

  it('does not open on failures interrupted by an answer, nor on throttling', async () => {
    // Prepare
    const { breakers, changes } = fleet(1);
    const [breaker] = breakers as [CircuitBreaker];

    // Act
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < DEFAULT_BREAKER_SETTINGS.failureThreshold - 1; i++)
        await request(breaker, down);
      await request(breaker, failedStatus);
    }
    for (let i = 0; i < 20; i++) await request(breaker, throttled);

    // Assess
    expect(changes).toEqual([]);
    expect(await breaker.permit()).toEqual({ kind: 'call', probe: false });
  });

  it('lets exactly one instance probe after the cool-down; its success closes the breaker for all', async () => {
    // Prepare
    const { clock, breakers, changes } = fleet(4);
    const [first, ...others] = breakers as [CircuitBreaker, ...CircuitBreaker[]];
    for (let i = 0; i < DEFAULT_BREAKER_SETTINGS.failureThreshold; i++) await request(first, down);
    clock.now += DEFAULT_BREAKER_SETTINGS.coolDownMs;

    // Act
    const permits = await Promise.all(breakers.map((b) => b.permit()));
    const probe = permits.findIndex((p) => p.kind === 'call');
    await breakers[probe]?.record(answered, permits[probe] ?? { kind: 'call', probe: true });
    clock.now += DEFAULT_BREAKER_SETTINGS.cacheMs;
    const after = await Promise.all(others.map((b) => b.permit()));

    // Assess
    expect(permits.filter((p) => p.kind === 'call')).toEqual([{ kind: 'call', probe: true }]);
    expect(changes).toEqual(['open', 'probe', 'closed']);
    expect(after.every((p) => p.kind === 'call' && !p.probe)).toBe(true);
  });

  it('opens again for another cool-down when the probe fails', async () => {
    // Prepare
    const { clock, breakers, changes } = fleet(1);
    const [breaker] = breakers as [CircuitBreaker];
    for (let i = 0; i < DEFAULT_BREAKER_SETTINGS.failureThreshold; i++)
      await request(breaker, down);
    clock.now += DEFAULT_BREAKER_SETTINGS.coolDownMs;

    // Act
    await request(breaker, refused);
    const permit = await breaker.permit();

    // Assess
    expect(changes).toEqual(['open', 'probe', 'open']);
    expect(permit).toMatchObject({
      kind: 'hold',
      retryAfterMs: DEFAULT_BREAKER_SETTINGS.coolDownMs,
    });
  });

  it('keeps breaking on what this instance saw when the shared store fails, and says so', async () => {
    // Prepare
    const failing = failingStore<BreakerStore>('throttled');
    const failures: string[] = [];
    const breaker = new CircuitBreaker('provisioning', failing, {
      now: () => 0,
      events: { storeFailed: (service) => failures.push(service) },
    });

    // Act
    for (let i = 0; i < DEFAULT_BREAKER_SETTINGS.failureThreshold; i++)
      await request(breaker, down);
    const permit = await breaker.permit();

    // Assess
    expect(permit.kind).toBe('hold');
    expect(failures.length).toBeGreaterThan(0);
    expect(new Set(failures)).toEqual(new Set(['provisioning']));
  });

  it('reads the shared state once for a prefetch and the permits that follow it', async () => {
    // Prepare: another instance opened the breaker; this one has not looked yet.
    const shared = new InMemoryBreakerStore();
    await shared.open('realtime', 1_000_000 + DEFAULT_BREAKER_SETTINGS.coolDownMs, 1_000_000);
    let reads = 0;
    const store: BreakerStore = {
      read: (service) => {
        reads += 1;
        return shared.read(service);
      },
      open: (...args) => shared.open(...args),
      claimProbe: (...args) => shared.claimProbe(...args),
      close: (service) => shared.close(service),
    };
    const [breaker] = fleet(1, store).breakers as [CircuitBreaker];

    // Act
    breaker.prefetch();
    const permits = await Promise.all([breaker.permit(), breaker.permit()]);

    // Assess: the permits joined the prefetch's read and see what it read.
    expect(reads).toBe(1);
    expect(permits.map((p) => p.kind)).toEqual(['hold', 'hold']);
  });

  it('keeps a prefetch that fails silent and lets the next permit read again', async () => {
    // Prepare
    let reads = 0;
    const failures: string[] = [];
    const store: BreakerStore = {
      read: async () => {
        reads += 1;
        if (reads === 1) throw new Error('throttled');
        return undefined;
      },
      open: async () => {},
      claimProbe: async () => true,
      close: async () => {},
    };
    const breaker = new CircuitBreaker('realtime', store, {
      now: () => 0,
      events: { storeFailed: (service) => failures.push(service) },
    });

    // Act
    breaker.prefetch();
    await new Promise((settled) => setTimeout(settled, 0));
    const first = await breaker.permit();

    // Assess: the failed read was reported, nothing was cached, the permit read afresh.
    expect(failures).toEqual(['realtime']);
    expect(reads).toBe(2);
    expect(first).toEqual({ kind: 'call', probe: false });
  });

  it('bounds what a long outage costs the platform, however many instances ask in any order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.record({ instance: fc.nat(), stepMs: fc.integer({ min: 0, max: 4000 }) }), {
          minLength: 50,
          maxLength: 600,
        }),
        async (instances, steps) => {
          // Prepare: the platform is down throughout.
          const { clock, breakers } = fleet(instances);
          const startedAt = clock.now;
          let calls = 0;

          // Act
          for (const step of steps) {
            clock.now += step.stepMs;
            const breaker = breakers[step.instance % instances] as CircuitBreaker;
            if (await request(breaker, down)) calls += 1;
          }

          // Assess: each instance's first run of failures, then one probe per cool-down.
          const probesAllowed =
            Math.floor((clock.now - startedAt) / DEFAULT_BREAKER_SETTINGS.coolDownMs) + 1;
          expect(calls).toBeLessThanOrEqual(
            instances * DEFAULT_BREAKER_SETTINGS.failureThreshold + probesAllowed,
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});
