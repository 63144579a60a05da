/**
 * The one base of this project's errors, as Powertools' idempotency errors share one: each
 * names its failure with a typed `code` and says what it asks for with a `category`, so that
 * code which sorts failures reads those two fields instead of an `instanceof` chain.
 */

/** What a failure asks for. */
export type ErrorCategory =
  /** The message or the item itself is wrong: no retry can cure it (dead-letter it; fix the item). */
  | 'permanent'
  /** A fault around the work (a service, a lease, a deadline): the same work may succeed later. */
  | 'retryable'
  /** The operator's command line or input file is wrong: fix it and run again (exit code 2). */
  | 'usage'
  /** The deployment, a configuration or the machine needs the operator; the message says what. */
  | 'operator';

export abstract class SyncError<C extends string = string> extends Error {
  abstract readonly code: C;
  abstract readonly category: ErrorCategory;
}

/** True for one of this project's errors of `category`. */
export const isErrorOf = (error: unknown, category: ErrorCategory): error is SyncError =>
  error instanceof SyncError && error.category === category;
