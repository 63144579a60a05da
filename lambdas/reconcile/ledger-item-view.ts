/**
 * The adapter from the ledger's items to what reconciliation asks of them (`LedgerView`): the
 * one file that knows the items (one per record family, keyed by region + clientId, or per
 * user; `lambdas/core/ledger/ledger-doc.ts`), read through each entity kind's own parse.
 */
import { familyKey, userKey } from '../core/ledger/entity-key';
import type { AnyEntityKind } from '../core/ledger/entity-kind';
import { versionTime } from '../core/ledger/event-version';
import { parseLedgerDoc } from '../core/ledger/ledger-doc';
import { ENTITY_KINDS } from '../entities';
import type { KnownFamily } from '../entities/record-family/known';
import { recordAt } from '../entities/record-family/model';
import type { KnownUser } from '../entities/user/known';
import type { UserId } from '../entities/user/platform-steps';
import type { EntityRef, LedgerView, PlacedRef } from './ledger-view';

/** What the view reads: one item by key, and every user item the ledger holds. */
export interface LedgerItems {
  read(key: string): Promise<unknown>;
  /** The items of every user (a table scan): the only way to list users, whose keys are hashes. */
  users(): AsyncIterable<unknown>;
}

const kindOf = (entity: EntityRef): AnyEntityKind =>
  entity.kind === 'user' ? ENTITY_KINDS.user : ENTITY_KINDS['record-family'];

const keyOf = (entity: EntityRef): string =>
  entity.kind === 'user' ? userKey(entity.loginUserId) : familyKey(entity.region, entity.clientId);

/** A user, or a family's record in one campaign, the ledger knows is there and made by us. */
const ours = (placed: PlacedRef, known: unknown): boolean => {
  if (placed.kind === 'user') {
    const place = (known as KnownUser).place;
    return place !== undefined && 'user' in place && place.user.born !== '';
  }
  // Only that campaign's place: the family's record elsewhere makes a hand-made one here no
  // more ours (it would otherwise be planned as a delete instead of reported as unmanaged).
  const place = (known as KnownFamily).places[placed.campaign];
  const record = place === undefined || 'unsure' in place ? undefined : recordAt(place);
  return record !== undefined && record.born !== '';
};

export class LedgerItemView implements LedgerView {
  readonly #items: LedgerItems;

  constructor(options: { readonly items: LedgerItems }) {
    this.#items = options.items;
  }

  async #doc(entity: EntityRef) {
    const kind = kindOf(entity);
    return parseLedgerDoc(await this.#items.read(keyOf(entity)), kind.name, kind.parts);
  }

  async newestEventAt(entity: EntityRef): Promise<number | undefined> {
    const doc = await this.#doc(entity);
    if (doc === undefined) return undefined;
    const versions = [...doc.events.map((e) => e.v), ...(doc.snapshot ? [doc.snapshot.v] : [])];
    return versions.length === 0 ? undefined : Math.max(...versions.map(versionTime));
  }

  async createdByUs(placed: PlacedRef): Promise<boolean> {
    const doc = await this.#doc(placed);
    return doc !== undefined && ours(placed, doc.known);
  }

  async *createdUsers(): AsyncIterable<string> {
    const kind = ENTITY_KINDS.user;
    for await (const raw of this.#items.users()) {
      const doc = parseLedgerDoc(raw, kind.name, kind.parts);
      if (doc === undefined) continue;
      const { loginUserId } = doc.id as UserId;
      if (ours({ kind: 'user', loginUserId }, doc.known)) yield loginUserId;
    }
  }
}

/** The ledger's items in an in-memory store (the local run, tests). */
export const inMemoryLedgerItems = (store: {
  read(key: string): Promise<unknown>;
  keys(): string[];
}): LedgerItems => ({
  read: (key) => store.read(key),
  users: async function* () {
    for (const key of store.keys().filter((k) => k.startsWith('user#'))) yield store.read(key);
  },
});
