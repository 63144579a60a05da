/**
 * Every platform call ends in exactly one of three categories. The batch harness acts on
 * the category only: success is done, retryable is redelivered by SQS, permanent goes to
 * the dead-letter queue at once.
 */
export type OutcomeCategory = 'success' | 'retryable' | 'permanent';

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
