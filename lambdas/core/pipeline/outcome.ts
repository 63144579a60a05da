/**
 * Every platform call ends in exactly one of three categories. The batch harness acts on
 * the category only: success is done, retryable is redelivered by SQS, permanent goes to
 * the dead-letter queue at once.
 */
import { SyncError } from '../errors';
export type OutcomeCategory = 'success' | 'retryable' | 'permanent';

/** The statuses the two platform specs list (realtime `previewResultStatus`, provisioning `result`). */
export type PlatformStatus =
  | 'SUCCESS'
  | 'FAILED'
  | 'INVALIDCLIENTID'
  | 'INVALIDRECORDDATAKEY'
  | 'NORECORDFOUND'
  | 'UNAUTHORIZED'
  | 'INVALID_TENANT'
  | 'INVALID_ARGUMENTS'
  | 'ALREADY_EXISTS'
  | 'NOT_SUPPORTED'
  | 'NOT_FOUND'
  | 'FAIL';

/** What the transport and the platform client report about a request. */
export type TransportCode =
  | `HTTP_${number}`
  | `UNKNOWN_STATUS:${string}`
  | 'NETWORK_ERROR'
  | 'TIMEOUT'
  | 'MALFORMED_RESPONSE'
  | 'DEADLINE_EXCEEDED'
  | 'API_KEY_UNAVAILABLE'
  | 'PLATFORM_UNAVAILABLE';

/** How the harness counts an outcome the integration decided itself. */
interface OwnCodeInfo {
  /** The metric a success of this code is counted under (else `Succeeded`). */
  readonly metric?: 'StaleSkipped' | 'Duplicate' | 'NoEffect' | 'AlreadyApplied' | 'DeletesHeld';
  /**
   * An entity's replay found the platform would refuse the event (it holds something not this
   * integration's): the event is kept unsettled, so a redrive after an operator's fix is decided
   * afresh.
   */
  readonly conflict?: true;
}

/**
 * Every code this integration decides, in one table: its reason is in its own words (never the
 * platform's text, which may quote record data), so logs may carry it, and a success is counted
 * under its metric. A code missing here is not a code: `Outcome.code` will not take it.
 */
export const OWN_CODES = {
  // Knowingly not sent (ordering).
  STALE_SKIPPED: { metric: 'StaleSkipped' },
  DUPLICATE: { metric: 'Duplicate' },
  NO_EFFECT: { metric: 'NoEffect' },
  // The state asked for already holds.
  ALREADY_APPLIED: { metric: 'AlreadyApplied' },
  ALREADY_ABSENT: { metric: 'AlreadyApplied' },
  ALREADY_DELETED: { metric: 'AlreadyApplied' },
  ALREADY_TRANSFERRED: { metric: 'AlreadyApplied' },
  // Parked by the mass-delete brake.
  HELD_BY_BRAKE: { metric: 'DeletesHeld' },
  // Conflicts: the platform holds something that is not this integration's.
  TRANSFER_TARGET_OCCUPIED: { conflict: true },
  USER_EXISTS_NOT_OURS: { conflict: true },
  // Waiting: retried with backoff within the retry window.
  RECORD_ID_UNRESOLVED: {},
  ENTITY_BUSY: {},
  ENTITY_UNSETTLED: {},
  RATE_LIMITED: {},
  RESULT_PUBLISH_FAILED: {},
  UNEXPECTED_ERROR: {},
  // Refused at the edge.
  INVALID_MESSAGE: {},
  INVALID_JSON: {},
  WRONG_DETAIL_TYPE: {},
  UNSUPPORTED_EVENT: {},
  // The entity's ledger item does not parse: no redelivery can change that, an operator must.
  LEDGER_ITEM_INVALID: {},
  // Dead-letter reasons the harness and the operator CLI write.
  RETRY_WINDOW_SPENT: {},
  DISCARDED_BY_OPERATOR: {},
} as const satisfies Record<string, OwnCodeInfo>;

export type OwnCode = keyof typeof OWN_CODES;

/** The codes of a conflict (`OwnCodeInfo.conflict`), as an entity's replay names them. */
export type ConflictCode = {
  [C in OwnCode]: (typeof OWN_CODES)[C] extends { readonly conflict: true } ? C : never;
}[OwnCode];

export const isConflictCode = (code: string): code is ConflictCode =>
  isOwnCode(code) && (OWN_CODES[code] as OwnCodeInfo).conflict === true;

/** Every outcome code: one union, so that a new one is declared where its reason is decided. */
export type OutcomeCode = PlatformStatus | TransportCode | OwnCode;

export const isOwnCode = (code: string): code is OwnCode => Object.hasOwn(OWN_CODES, code);

/** Successes that knowingly sent nothing: stale, a duplicate, or no effect at the event's time. */
export const isSkip = (code: OutcomeCode): boolean =>
  ['StaleSkipped', 'Duplicate', 'NoEffect'].includes(successMetric(code));

/** The platform already held what the message asks for (ALREADY_EXISTS, ALREADY_DELETED, …). */
export const isAlreadyCode = (code: string): boolean => code.startsWith('ALREADY_');

/** The metric a success is counted under. */
export const successMetric = (code: OutcomeCode): string =>
  (isOwnCode(code) ? (OWN_CODES[code] as OwnCodeInfo).metric : undefined) ??
  (isAlreadyCode(code) ? 'AlreadyApplied' : 'Succeeded');

/** How one message's platform work ended: the one result type from the socket to the harness. */
export interface Outcome<TBody = unknown> {
  readonly category: OutcomeCategory;
  /** Machine-readable reason: a platform status, a transport code, or one of `OWN_CODES`. */
  readonly code: OutcomeCode;
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
export class RetryableFailure extends SyncError<OutcomeCode> {
  override readonly name = 'RetryableFailure';
  readonly category = 'retryable';
  readonly code: OutcomeCode;
  constructor(readonly outcome: Outcome) {
    super(`${outcome.code}: ${outcome.message}`);
    this.code = outcome.code;
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
export const alreadyApplied = (outcome: Outcome, code: OutcomeCode, message: string): Outcome => ({
  ...outcome,
  category: 'success',
  code,
  message,
});

/** A success this integration decided without (further) platform requests. */
export const success = (code: OutcomeCode, message: string, attempts = 0): Outcome => ({
  category: 'success',
  code,
  message,
  attempts,
});
