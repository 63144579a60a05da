import { type EntityRef, entityKey, type LedgerView, type PlacedRef } from './ledger-view';

interface Known {
  newestEventAt?: number;
  loginUserId?: string;
}

/** A user, or a family's record in one campaign: where "created by us" is known. */
const placeKey = (placed: PlacedRef): string =>
  placed.kind === 'user' ? entityKey(placed) : `${entityKey(placed)}@${placed.campaign}`;

/**
 * A ledger view kept in memory: tests say what the ledger knows of each entity, and the planner
 * reads it through the same port as the DynamoDB adapter.
 */
export class InMemoryLedgerView implements LedgerView {
  readonly #known = new Map<string, Known>();
  /** Places (see `placeKey`) holding what this integration created and has not deleted. */
  readonly #created = new Set<string>();

  /** The ledger saw an event of the entity at `occurredAt` (ms); `created` marks our own create. */
  noteEvent(placed: PlacedRef, occurredAt: number, effect: 'created' | 'deleted' | 'changed') {
    const key = entityKey(placed);
    const known = this.#known.get(key) ?? {};
    known.newestEventAt = Math.max(known.newestEventAt ?? occurredAt, occurredAt);
    if (effect === 'created') this.#created.add(placeKey(placed));
    if (effect === 'deleted') this.#created.delete(placeKey(placed));
    if (placed.kind === 'user') known.loginUserId = placed.loginUserId;
    this.#known.set(key, known);
  }

  async newestEventAt(entity: EntityRef): Promise<number | undefined> {
    return this.#known.get(entityKey(entity))?.newestEventAt;
  }

  async createdByUs(placed: PlacedRef): Promise<boolean> {
    return this.#created.has(placeKey(placed));
  }

  async *createdUsers(): AsyncIterable<string> {
    for (const [key, known] of this.#known) {
      if (known.loginUserId !== undefined && this.#created.has(key)) yield known.loginUserId;
    }
  }
}
