/**
 * Where the ledger keeps its items: DynamoDB in Lambda, memory in the local run. Both follow
 * this contract, and the same contract tests run against both. An item is a JSON document the
 * store does not look into (`ledger-doc.ts` parses it), plus the lease the conditions read.
 */
import { SyncError } from '../errors';

/** A claim on one entity: only its holder may write the entity until `until`. */
export interface Lease {
  readonly token: string;
  /** Epoch ms; after it anyone may take the entity over (a crashed holder never blocks it). */
  readonly until: number;
  /** Key of the event the holder works on (a takeover knows which work may have run). */
  readonly eventKey: string;
}

export type ClaimResult =
  | {
      readonly kind: 'claimed';
      /** The entity's item as stored; undefined when the ledger has never seen it. */
      readonly doc: unknown;
      /** The event key of an expired lease this claim took over: its calls may have run. */
      readonly takenOverFrom?: string;
    }
  | { readonly kind: 'busy'; readonly until: number };

/** The lease was lost (expired and taken over): the write did not happen. */
export class LeaseLostError extends SyncError<'LEASE_LOST'> {
  override readonly name = 'LeaseLostError';
  readonly code = 'LEASE_LOST';
  readonly category = 'retryable';
  constructor(readonly key: string) {
    super(`lost the lease on ledger entity ${key}`);
  }
}

export interface LedgerStore {
  /** Takes the lease unless another holder's lease is live; answers the item as it was. */
  claim(key: string, lease: Lease, now: number): Promise<ClaimResult>;
  /**
   * Writes the item and drops the lease, if `token` still holds it. `expiresAt` (epoch seconds)
   * lets old tombstones and history go. Throws `LeaseLostError` otherwise.
   */
  commit(key: string, token: string, doc: object, expiresAt?: number): Promise<void>;
  /** Drops the lease without writing (nothing learnt). Never throws for a lost lease. */
  release(key: string, token: string): Promise<void>;
  /** The item as stored, for operators and tests. */
  read(key: string): Promise<unknown>;
  /** Another name of an entity (a previewRecordId): the entity key it stands for. */
  readAlias(alias: string): Promise<string | undefined>;
  writeAlias(alias: string, target: string, expiresAt: number): Promise<void>;
}
