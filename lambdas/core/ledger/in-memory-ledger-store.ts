import type { EntityDoc } from './entity';
import { type ClaimResult, type Lease, LeaseLostError, type LedgerStore } from './ledger-store';

interface Item {
  doc?: EntityDoc;
  lease?: Lease;
  expiresAt?: number;
}

/** The ledger in memory, for the local run and tests; the same contract as DynamoDB. */
export class InMemoryLedgerStore implements LedgerStore {
  readonly #items = new Map<string, Item>();
  /** Store requests served, by kind (the bench and tests read it). */
  readonly requests = { claim: 0, commit: 0, release: 0, read: 0 };

  async claim(key: string, lease: Lease, now: number): Promise<ClaimResult> {
    this.requests.claim += 1;
    const item = this.#items.get(key) ?? {};
    if (item.lease !== undefined && item.lease.until >= now) {
      return { kind: 'busy', until: item.lease.until };
    }
    const takenOver = item.lease?.eventKey;
    this.#items.set(key, { ...item, lease });
    return {
      kind: 'claimed',
      doc: structuredClone(item.doc),
      ...(takenOver === undefined ? {} : { takenOverFrom: takenOver }),
    };
  }

  async commit(key: string, token: string, doc: EntityDoc, expiresAt?: number): Promise<void> {
    this.requests.commit += 1;
    const item = this.#items.get(key);
    if (item?.lease?.token !== token) throw new LeaseLostError(key);
    this.#items.set(key, {
      doc: structuredClone(doc),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    });
  }

  async release(key: string, token: string): Promise<void> {
    this.requests.release += 1;
    const item = this.#items.get(key);
    if (item?.lease?.token !== token) return;
    const { lease: _l, ...rest } = item;
    this.#items.set(key, rest);
  }

  async read(key: string): Promise<EntityDoc | undefined> {
    this.requests.read += 1;
    return structuredClone(this.#items.get(key)?.doc);
  }

  /** Keys of the items held, for tools that look at every item (the bench sizes them); not a store request. */
  keys(): string[] {
    return [...this.#items.keys()];
  }
}
