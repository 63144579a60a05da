import type { EntityDoc } from './entity';

/**
 * Where the ledger keeps its documents: DynamoDB in Lambda, memory in the local run. Both follow
 * this contract, and the same contract tests run against both.
 */

/** A claim on one entity: only its holder may write the entity until `until`. */
export interface Lease {
  readonly token: string;
  /** Epoch ms; after it anyone may take the entity over (a crashed holder never blocks it). */
  readonly until: number;
  /** Attempt key of the event the holder works on (a takeover by the same request knows it may have run). */
  readonly eventKey: string;
}

export type ClaimResult =
  | {
      readonly kind: 'claimed';
      /** The entity's document; undefined when the ledger has never seen it. */
      readonly doc: EntityDoc | undefined;
      /** The event key of an expired lease this claim took over. */
      readonly takenOverFrom?: string;
    }
  | { readonly kind: 'busy'; readonly until: number };

/** The lease was lost (expired and taken over): the write did not happen. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(readonly key: string) {
    super(`lost the lease on ledger entity ${key}`);
  }
}

export interface LedgerStore {
  /** Takes the lease unless another holder's lease is live. */
  claim(key: string, lease: Lease, now: number): Promise<ClaimResult>;
  /**
   * Writes the document and drops the lease, if `token` still holds it. `expiresAt` (epoch
   * seconds) lets old tombstones and history go. Throws `LeaseLostError` otherwise.
   */
  commit(key: string, token: string, doc: EntityDoc, expiresAt?: number): Promise<void>;
  /** Drops the lease without writing (nothing learnt). Never throws for a lost lease. */
  release(key: string, token: string): Promise<void>;
  /** The document as stored, for operators and tests. */
  read(key: string): Promise<EntityDoc | undefined>;
}
