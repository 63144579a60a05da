import type { HttpSettings } from './platform-settings';

/** Time and randomness, injectable so tests run without real waiting. */
export interface RetryDeps {
  readonly sleep: (ms: number) => Promise<void>;
  /** Uniform in [0, 1), like Math.random. */
  readonly random: () => number;
  /** Epoch milliseconds, like Date.now. */
  readonly now: () => number;
}

export const defaultRetryDeps: RetryDeps = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
  now: Date.now,
};

/**
 * Full-jitter backoff ("Exponential Backoff And Jitter", AWS Architecture Blog):
 * `random(0, min(maxDelay, base * 2^retryIndex))`, where retryIndex is 0 before the first
 * retry. Spreads retries of many concurrent Lambdas instead of synchronising them.
 */
export const fullJitterDelay = (
  retryIndex: number,
  settings: Pick<HttpSettings, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number,
): number => {
  const cap = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** retryIndex);
  const unit = Math.min(Math.max(random(), 0), 1);
  return Math.floor(unit * cap);
};

const DELAY_SECONDS = /^\d+$/;
/** IMF-fixdate, RFC 850 and asctime dates all start with a day name (RFC 9110 §5.6.7). */
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/;

/**
 * `Retry-After` as milliseconds to wait: delay-seconds or an HTTP date (a past date means 0).
 * Undefined when absent or not parseable, so the caller falls back to jittered backoff.
 */
export const parseRetryAfter = (value: string | undefined, nowMs: number): number | undefined => {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  if (HTTP_DATE.test(text)) {
    const at = Date.parse(text);
    if (Number.isFinite(at)) return Math.max(0, at - nowMs);
  }
  return undefined;
};

/** Delay before retry number `retryIndex + 1`: Retry-After when given (capped), else full jitter. */
export const retryDelay = (
  retryIndex: number,
  retryAfterMs: number | undefined,
  settings: Pick<HttpSettings, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number,
): number =>
  retryAfterMs === undefined
    ? fullJitterDelay(retryIndex, settings, random)
    : Math.min(retryAfterMs, settings.maxDelayMs);

/** What one attempt tells the retry loop. */
export interface AttemptResult<T> {
  readonly value: T;
  readonly retryable: boolean;
  /** Server-requested wait (parsed Retry-After) in ms. */
  readonly retryAfterMs?: number;
  /** Stop even though retryable: another attempt cannot help (e.g. 401 after a key refresh). */
  readonly final?: boolean;
}

/** Handed to each attempt so it can make an extra request (the 401 refresh) inside the rules. */
export interface AttemptBudget {
  /** Timeout for this attempt's request: the request timeout, or less on a first attempt near the deadline. */
  readonly timeoutMs: number;
  /** True when a further request (full request timeout) still ends before the deadline. */
  readonly mayStartRequest: () => boolean;
}

/**
 * Runs `attempt` up to `maxAttempts` times while it reports a retryable result, sleeping a
 * backoff delay between attempts. Never starts a sleep or a later attempt that could end after
 * `deadline` (epoch ms): a retry needs `now + delay + requestTimeoutMs <= deadline`. The first
 * attempt runs whenever any time is left, with its timeout shortened to the time left.
 * Returns the last attempt's value, or undefined when the deadline left no time for any attempt.
 */
export const withRetries = async <T>(
  attempt: (budget: AttemptBudget) => Promise<AttemptResult<T>>,
  settings: HttpSettings,
  deps: RetryDeps,
  deadline: number = Number.POSITIVE_INFINITY,
): Promise<T | undefined> => {
  const mayStartRequest = (): boolean => deps.now() + settings.requestTimeoutMs <= deadline;
  const left = deadline - deps.now();
  if (left <= 0) return undefined;
  let result = await attempt({
    timeoutMs: Math.min(settings.requestTimeoutMs, left),
    mayStartRequest,
  });
  for (let retryIndex = 0; retryIndex < settings.maxAttempts - 1; retryIndex += 1) {
    if (!result.retryable || result.final === true) break;
    const delay = retryDelay(retryIndex, result.retryAfterMs, settings, deps.random);
    if (deps.now() + delay + settings.requestTimeoutMs > deadline) break;
    if (delay > 0) await deps.sleep(delay);
    // The sleep may overrun (timer lag, frozen container): re-check before the request.
    if (!mayStartRequest()) break;
    result = await attempt({ timeoutMs: settings.requestTimeoutMs, mayStartRequest });
  }
  return result.value;
};
