import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_SCHEDULE,
  describeDuration,
  minimumDelaySeconds,
  nextDelaySeconds,
  type RetrySchedule,
  receivesWithinWindow,
  SQS_MAX_VISIBILITY_SECONDS,
  windowSpent,
} from '../../../lambdas/core/entry/retry-schedule';

const schedules = fc
  .record({
    windowSeconds: fc.integer({ min: 60, max: 7 * 24 * 3600 }),
    firstDelaySeconds: fc.integer({ min: 1, max: 900 }),
    maxDelaySeconds: fc.integer({ min: 1, max: SQS_MAX_VISIBILITY_SECONDS }),
  })
  .filter((s) => s.maxDelaySeconds >= s.firstDelaySeconds);

describe('nextDelaySeconds', () => {
  it('doubles from the first delay up to the cap, with jitter down to half', () => {
    // Act
    const lowest = [1, 2, 3, 6, 7].map((n) =>
      nextDelaySeconds(DEFAULT_RETRY_SCHEDULE, n, undefined, () => 0),
    );
    const highest = [1, 2, 3, 6, 7].map((n) =>
      nextDelaySeconds(DEFAULT_RETRY_SCHEDULE, n, undefined, () => 0.999_999),
    );

    // Assess
    expect(lowest).toEqual([15, 30, 60, 450, 450]);
    expect(highest).toEqual([30, 60, 120, 900, 900]);
  });

  it('never waits less than Retry-After asks, nor longer than SQS allows', () => {
    fc.assert(
      fc.property(
        schedules,
        fc.integer({ min: 1, max: 1000 }),
        fc.option(fc.integer({ min: 0, max: 100 * 3600 * 1000 }), { nil: undefined }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (schedule, receiveCount, retryAfterMs, unit) => {
          // Act
          const delay = nextDelaySeconds(schedule, receiveCount, retryAfterMs, () => unit);

          // Assess
          expect(delay).toBeLessThanOrEqual(SQS_MAX_VISIBILITY_SECONDS);
          expect(delay).toBeGreaterThanOrEqual(minimumDelaySeconds(schedule, receiveCount));
          if (retryAfterMs !== undefined) {
            expect(delay).toBeGreaterThanOrEqual(
              Math.min(SQS_MAX_VISIBILITY_SECONDS, Math.ceil(retryAfterMs / 1000)),
            );
          }
        },
      ),
    );
  });
});

describe('the window and the derived maxReceiveCount', () => {
  it('spends the window when the next retry could only start after it', () => {
    // Prepare
    const schedule: RetrySchedule = {
      windowSeconds: 3600,
      firstDelaySeconds: 30,
      maxDelaySeconds: 900,
    };
    const sentAt = 1_000_000;

    // Act / Assess: after receive 6 the shortest wait is 450 s.
    expect(windowSpent(schedule, 6, sentAt, sentAt + 3150 * 1000)).toBe(false);
    expect(windowSpent(schedule, 6, sentAt, sentAt + 3151 * 1000)).toBe(true);
  });

  it('dead-letters by the window before SQS redrive could, whatever the jitter and Retry-After', () => {
    fc.assert(
      fc.property(
        schedules.filter((s) => receivesWithinWindow(s) <= 1000),
        fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        fc.infiniteStream(fc.option(fc.integer({ min: 0, max: 3600_000 }), { nil: undefined })),
        (schedule, jitters, retryAfters) => {
          // Prepare: a message that fails on every receive, rescheduled by the schedule.
          const sentAt = 0;
          let now = sentAt;
          let receive = 1;
          const jitter = jitters[Symbol.iterator]();
          const asked = retryAfters[Symbol.iterator]();

          // Act
          while (!windowSpent(schedule, receive, sentAt, now)) {
            const unit = jitter.next().value as number;
            now += nextDelaySeconds(schedule, receive, asked.next().value, () => unit) * 1000;
            receive += 1;
          }

          // Assess: the handler's own last receive comes before SQS would move the message.
          expect(receive).toBeLessThan(receivesWithinWindow(schedule));
          expect(now - sentAt).toBeGreaterThanOrEqual(
            (schedule.windowSeconds - minimumDelaySeconds(schedule, receive)) * 1000,
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('gives 220 receives for the default day at 30 s doubling to 15 min', () => {
    // Act / Assess
    expect(receivesWithinWindow(DEFAULT_RETRY_SCHEDULE)).toBe(220);
  });
});

describe('describeDuration', () => {
  it.each([
    [45_000, '45 s'],
    [125_000, '2 min 5 s'],
    [86_460_000, '24 h 1 min'],
  ])('%d ms reads "%s"', (ms, text) => {
    // Act / Assess
    expect(describeDuration(ms)).toBe(text);
  });
});
