import type { Outcome } from './outcome';

/**
 * How one receive of one message ended, the one result type of the harness:
 * - `applied`: done (applied, in place already, or knowingly skipped as stale or duplicate);
 * - `retry`: reported as failed for redelivery (also when the dead-letter send failed);
 * - `dead-lettered`: in the DLQ with its reason;
 * - `rejected`: a permanent failure answered to a direct caller instead of dead-lettered;
 * - `held`: parked by the mass-delete brake until an operator releases or discards it.
 */
export interface Disposition {
  readonly kind: 'applied' | 'retry' | 'dead-lettered' | 'rejected' | 'held';
  /** SQS message id, EventBridge event id, or the request id of a direct invocation. */
  readonly messageId: string;
  readonly correlationId: string;
  /** 1 for the first delivery. */
  readonly receiveCount: number;
  readonly outcome: Outcome;
}
