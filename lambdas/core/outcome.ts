/**
 * Every platform call ends in exactly one of three categories. The batch harness acts on
 * the category only: success is done, retryable is redelivered by SQS, permanent goes to
 * the dead-letter queue at once.
 */
export type OutcomeCategory = 'success' | 'retryable' | 'permanent';

/** How one message's platform work ended: the one result type from the socket to the harness. */
export interface Outcome<TBody = unknown> {
  readonly category: OutcomeCategory;
  /**
   * Machine-readable reason: the platform status (`SUCCESS`, `NORECORDFOUND`, `ALREADY_EXISTS`, …),
   * `HTTP_<status>`, `NETWORK_ERROR`, `TIMEOUT`, `MALFORMED_RESPONSE`, `INVALID_MESSAGE`, …
   */
  readonly code: string;
  /** Human-readable reason an operator can act on. Never contains the API key or record data values. */
  readonly message: string;
  /** HTTP status of the last attempt, when a response was received. */
  readonly httpStatus?: number;
  /** Parsed response body of the last attempt, when it was JSON. */
  readonly body?: TBody;
  /** HTTP attempts made for this outcome (1 when the first attempt decided it). */
  readonly attempts: number;
  /**
   * An earlier attempt of the same call failed in a way that may still have been applied: a
   * later "not found" or "already exists" in this call may be its doing.
   */
  readonly afterDoubt?: boolean;
  /**
   * How long to wait before trying again (the platform's `Retry-After`, an open breaker):
   * the SQS handler keeps the message invisible at least this long.
   */
  readonly retryAfterMs?: number;
  /** The typed result of a read (published on the result bus, returned when invoked directly). */
  readonly result?: unknown;
}

/**
 * Thrown to fail a record so that SQS redelivers it. Carries the outcome so the harness
 * can log and count it; never swallowed.
 */
export class RetryableFailure extends Error {
  override readonly name = 'RetryableFailure';
  constructor(readonly outcome: Outcome) {
    super(`${outcome.code}: ${outcome.message}`);
  }
}

/** Failures after which the request may have been applied although no answer said so. */
export const mayHaveBeenApplied = (outcome: Outcome): boolean =>
  outcome.code === 'TIMEOUT' ||
  outcome.code === 'NETWORK_ERROR' ||
  outcome.code === 'MALFORMED_RESPONSE' ||
  (outcome.httpStatus !== undefined && outcome.httpStatus >= 500);

/**
 * A failed call that may have been applied all the same: by its last attempt, or by an earlier
 * unanswered one that a plain failure (FAILED, 429) then hid (`afterDoubt`).
 */
export const callMayHaveBeenApplied = (outcome: Outcome): boolean =>
  mayHaveBeenApplied(outcome) || outcome.afterDoubt === true;

/** The desired end state already holds: report success, keep the evidence in code and message. */
export const alreadyApplied = (outcome: Outcome, code: string, message: string): Outcome => ({
  ...outcome,
  category: 'success',
  code,
  message,
});

/**
 * The action's idempotency override: the platform's `answer` means the desired state is
 * already in place (a delete of what is gone), so it is a success with code `as`.
 */
export const answerMeansApplied = (
  outcome: Outcome,
  answer: string,
  as: string,
  message: string,
): Outcome => (outcome.code === answer ? alreadyApplied(outcome, as, message) : outcome);

/** A success this integration decided without (further) platform requests. */
export const success = (code: string, message: string, attempts = 0): Outcome => ({
  category: 'success',
  code,
  message,
  attempts,
});
