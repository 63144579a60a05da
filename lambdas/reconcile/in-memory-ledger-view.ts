import { type EntityRef, entityKey, type LedgerView } from './ledger-view';

interface Known {
  newestEventAt?: number;
  createdByUs: boolean;
  loginUserId?: string;
}

/**
 * A ledger view kept in memory: tests and the property test say what the ledger knows of each
 * entity, and the planner reads it through the same port as the DynamoDB adapter.
 */
export class InMemoryLedgerView implements LedgerView {
  readonly #known = new Map<string, Known>();

  /** The ledger saw an event of the entity at `occurredAt` (ms); `created` marks our own create. */
  noteEvent(entity: EntityRef, occurredAt: number, effect: 'created' | 'deleted' | 'changed') {
    const key = entityKey(entity);
    const known = this.#known.get(key) ?? { createdByUs: false };
    known.newestEventAt = Math.max(known.newestEventAt ?? occurredAt, occurredAt);
    if (effect === 'created') known.createdByUs = true;
    if (effect === 'deleted') known.createdByUs = false;
    if (entity.kind === 'user') known.loginUserId = entity.loginUserId;
    this.#known.set(key, known);
  }

  async newestEventAt(entity: EntityRef): Promise<number | undefined> {
    return this.#known.get(entityKey(entity))?.newestEventAt;
  }

  async createdByUs(entity: EntityRef): Promise<boolean> {
    return this.#known.get(entityKey(entity))?.createdByUs === true;
  }

  async *createdUsers(): AsyncIterable<string> {
    for (const known of this.#known.values()) {
      if (known.createdByUs && known.loginUserId !== undefined) yield known.loginUserId;
    }
  }
}
