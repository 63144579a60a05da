import { SyncError } from '../core/errors';
import type { RefusalCode } from './reconcile-codes';

/**
 * The base of reconciliation's refusals: a snapshot that is not planned, a plan file that is not
 * applied. Its `code` is one of the table's (reconcile-codes.ts), so whoever plans or applies
 * notes and prints every refusal the same way, whichever class threw it.
 */
export abstract class Refusal<C extends RefusalCode = RefusalCode> extends SyncError<C> {
  /** What the operator reads after `Refused (<CODE>): `; the message unless the class says more. */
  get reason(): string {
    return this.message;
  }
}

/** A refusal of an input that is itself wrong: the same input is refused again, whenever it comes. */
export abstract class PermanentRefusal<C extends RefusalCode = RefusalCode> extends Refusal<C> {
  readonly category = 'permanent';
  constructor(
    /** For reports and metrics: one of the table's (reconcile-codes.ts). */
    readonly code: C,
    message: string,
  ) {
    super(message);
  }
}

/** The line the operator commands print for a refusal, then what did not happen. */
export const refusedLine = (refusal: Refusal, nothingDone: string): string =>
  `Refused (${refusal.code}): ${refusal.reason}. ${nothingDone}`;
