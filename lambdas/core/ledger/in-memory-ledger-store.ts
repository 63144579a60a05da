import { type ClaimResult, type Lease, LeaseLostError, type LedgerStore } from './ledger-store';

interface Item {
  doc?: unknown;
  lease?: Lease;
  expiresAt?: number;
}

/** The ledger in memory, for the local run and tests; the same contract as DynamoDB. */
export class InMemoryLedgerStore implements LedgerStore {
  readonly #items = new Map<string, Item>();
  readonly #aliases = new Map<string, string>();
  /** Store requests served, by kind (the bench and tests read it). */
  readonly requests = { claim: 0, commit: 0, release: 0, read: 0, readAlias: 0, writeAlias: 0 };

  async claim(key: string, lease: Lease, now: number): Promise<ClaimResult> {
    this.requests.claim += 1;
    const item = this.#items.get(key) ?? {};
    const ours = item.lease?.token === lease.token;
    if (item.lease !== undefined && item.lease.until >= now && !ours) {
      return { kind: 'busy', until: item.lease.until };
    }
    const takenOver = ours ? undefined : item.lease?.eventKey;
    this.#items.set(key, { ...item, lease });
    return {
      kind: 'claimed',
      doc: structuredClone(item.doc),
      ...(takenOver === undefined ? {} : { takenOverFrom: takenOver }),
    };
  }

  async commit(key: string, token: string, doc: object, expiresAt?: number): Promise<void> {
    this.requests.commit += 1;
    const item = this.#items.get(key);
    if (item?.lease?.token !== token) throw new LeaseLostError(key);
    // Stored as DynamoDB stores it: a JSON text, so what is written is what a read gets back.
    this.#items.set(key, {
      doc: JSON.parse(JSON.stringify(doc)),
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

  async read(key: string): Promise<unknown> {
    this.requests.read += 1;
    return structuredClone(this.#items.get(key)?.doc);
  }

  async readAlias(alias: string): Promise<string | undefined> {
    this.requests.readAlias += 1;
    return this.#aliases.get(alias);
  }

  async writeAlias(alias: string, target: string): Promise<void> {
    this.requests.writeAlias += 1;
    this.#aliases.set(alias, target);
  }

  /** Keys of the items held, for tools that look at every item (the bench sizes them); not a store request. */
  keys(): string[] {
    return [...this.#items.keys()];
  }
}
