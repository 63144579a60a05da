import { describe, expect, it } from 'vitest';
import type { HttpSettings } from '../../../lambdas/core/platform/platform-settings';
import {
  type AttemptBudget,
  type AttemptResult,
  fullJitterDelay,
  parseRetryAfter,
  type RetryDeps,
  retryDelay,
  withRetries,
} from '../../../lambdas/core/platform/retry';
import { instantClock } from './client-fixtures';

const settings: HttpSettings = {
  requestTimeoutMs: 1000,
  maxAttempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 2000,
};

/** A clock that only moves when the code under test sleeps or a request "takes" time. */
const fakeClock = (start = 1_000_000, randomValues: number[] = []) =>
  instantClock(start, randomValues);

/** Scripted attempts: each call returns the next result and records its budget. */
const scripted = <T>(results: AttemptResult<T>[], onCall?: () => void) => {
  const budgets: AttemptBudget[] = [];
  const attempt = async (budget: AttemptBudget): Promise<AttemptResult<T>> => {
    budgets.push(budget);
    onCall?.();
    const next = results.shift();
    if (next === undefined) throw new Error('more attempts than scripted');
    return next;
  };
  return { attempt, budgets };
};

const retryable = (value: string, extra: Partial<AttemptResult<string>> = {}) => ({
  value,
  retryable: true,
  ...extra,
});
const done = (value: string) => ({ value, retryable: false });

describe('fullJitterDelay', () => {
  it.each([
    [0, 100],
    [1, 200],
    [2, 400],
    [3, 800],
    [4, 1600],
    [5, 2000],
    [20, 2000],
  ])('draws retry %i from [0, %i)', (retryIndex, cap) => {
    // Prepare
    const lowest = () => 0;
    const highest = () => 0.999_999;

    // Act
    const low = fullJitterDelay(retryIndex, settings, lowest);
    const high = fullJitterDelay(retryIndex, settings, highest);
    const middle = fullJitterDelay(retryIndex, settings, () => 0.5);

    // Assess
    expect(low).toBe(0);
    expect(high).toBe(cap - 1);
    expect(middle).toBe(cap / 2);
  });

  it('stays within bounds for many random draws', () => {
    // Prepare
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };

    // Act
    const delays = Array.from(
      { length: 1000 },
      (_, i) => [i % 8, fullJitterDelay(i % 8, settings, random)] as const,
    );

    // Assess
    for (const [retryIndex, delay] of delays) {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(Math.min(2000, 100 * 2 ** retryIndex));
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it.each([
    ['0', 0],
    ['3', 3000],
    [' 120 ', 120_000],
    ['Thu, 01 Jan 2026 00:00:07 GMT', 7000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    ['Thursday, 01-Jan-26 00:00:02 GMT', 2000],
  ])('reads "%s" as %i ms', (value, expected) => {
    // Prepare
    const header = value;

    // Act
    const ms = parseRetryAfter(header, now);

    // Assess
    expect(ms).toBe(expected);
  });

  it.each([undefined, '', '-5', '1.5', 'soon', 'Fri, not a date'])('ignores %j', (value) => {
    // Prepare
    const header = value;

    // Act
    const ms = parseRetryAfter(header, now);

    // Assess
    expect(ms).toBeUndefined();
  });
});

describe('retryDelay', () => {
  it('uses Retry-After instead of jitter, capped at maxDelayMs', () => {
    // Prepare
    const random = () => 0.5;

    // Act
    const honoured = retryDelay(0, 1500, settings, random);
    const capped = retryDelay(0, 60_000, settings, random);
    const jitter = retryDelay(2, undefined, settings, random);

    // Assess
    expect(honoured).toBe(1500);
    expect(capped).toBe(2000);
    expect(jitter).toBe(200);
  });
});

describe('withRetries', () => {
  it('stops at the first non-retryable result', async () => {
    // Prepare
    const clock = fakeClock();
    const { attempt, budgets } = scripted([retryable('503'), done('ok')]);

    // Act
    const value = await withRetries(attempt, settings, clock.deps);

    // Assess
    expect(value).toBe('ok');
    expect(budgets).toHaveLength(2);
  });

  it('makes at most maxAttempts attempts with full-jitter sleeps in between', async () => {
    // Prepare
    const clock = fakeClock(0, [0.5, 0.25, 1 - 1e-9]);
    const { attempt, budgets } = scripted([
      retryable('a'),
      retryable('b'),
      retryable('c'),
      retryable('d'),
    ]);

    // Act
    const value = await withRetries(attempt, settings, clock.deps);

    // Assess
    expect(value).toBe('d');
    expect(budgets).toHaveLength(4);
    expect(clock.sleeps).toEqual([50, 50, 399]);
    expect(budgets.every((b) => b.timeoutMs === 1000)).toBe(true);
  });

  it('honours Retry-After from the last result', async () => {
    // Prepare
    const clock = fakeClock();
    const { attempt } = scripted([
      retryable('429', { retryAfterMs: 1200 }),
      retryable('429', { retryAfterMs: 9000 }),
      done('ok'),
    ]);

    // Act
    await withRetries(attempt, settings, clock.deps);

    // Assess
    expect(clock.sleeps).toEqual([1200, 2000]);
  });

  it('stops after a result marked final', async () => {
    // Prepare
    const clock = fakeClock();
    const { attempt, budgets } = scripted([retryable('401', { final: true })]);

    // Act
    const value = await withRetries(attempt, settings, clock.deps);

    // Assess
    expect(value).toBe('401');
    expect(budgets).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('never starts a sleep that would end after deadline minus the request timeout', async () => {
    // Prepare: each attempt takes 300 ms; the deadline allows one retry with a 100 ms delay.
    const clock = fakeClock(0, [0.5, 0.999]);
    const { attempt, budgets } = scripted([retryable('a'), retryable('b'), retryable('c')], () =>
      clock.advance(300),
    );
    const deadline = 300 + 50 + 300 + 198 + 1000;

    // Act
    const value = await withRetries(attempt, settings, clock.deps, deadline);

    // Assess: the second delay (199 ms) would leave no room for a full request timeout.
    expect(value).toBe('b');
    expect(budgets).toHaveLength(2);
    expect(clock.sleeps).toEqual([50]);
    expect(clock.now()).toBeLessThanOrEqual(deadline);
  });

  it('re-checks the deadline after a sleep that overran', async () => {
    // Prepare: the sleep takes far longer than asked (a frozen container).
    const clock = fakeClock(0, [0.5]);
    const deps: RetryDeps = {
      ...clock.deps,
      sleep: async (ms) => {
        clock.advance(ms + 5000);
      },
    };
    const { attempt, budgets } = scripted([retryable('a'), retryable('b')]);

    // Act
    const value = await withRetries(attempt, settings, deps, 3000);

    // Assess
    expect(value).toBe('a');
    expect(budgets).toHaveLength(1);
  });

  it('shortens the first attempt to the time left before the deadline', async () => {
    // Prepare
    const clock = fakeClock(10_000);
    const { attempt, budgets } = scripted([retryable('a')]);

    // Act
    const value = await withRetries(attempt, settings, clock.deps, 10_400);

    // Assess
    expect(value).toBe('a');
    expect(budgets.map((b) => b.timeoutMs)).toEqual([400]);
    expect(clock.sleeps).toEqual([]);
  });

  it('makes no attempt when the deadline has passed', async () => {
    // Prepare
    const clock = fakeClock(10_000);
    const { attempt, budgets } = scripted([done('never')]);

    // Act
    const value = await withRetries(attempt, settings, clock.deps, 10_000);

    // Assess
    expect(value).toBeUndefined();
    expect(budgets).toHaveLength(0);
  });

  it('tells an attempt whether one more full request fits', async () => {
    // Prepare
    const clock = fakeClock(0);
    let fitsAtStart = false;
    let fitsLater = true;
    const attempt = async (budget: AttemptBudget): Promise<AttemptResult<string>> => {
      fitsAtStart = budget.mayStartRequest();
      clock.advance(600);
      fitsLater = budget.mayStartRequest();
      return done('ok');
    };

    // Act
    await withRetries(attempt, settings, clock.deps, 1500);

    // Assess
    expect(fitsAtStart).toBe(true);
    expect(fitsLater).toBe(false);
  });
});
