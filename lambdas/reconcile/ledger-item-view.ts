/**
 * The adapter from the ledger's items to what reconciliation asks of them (`LedgerView`): the
 * one file that knows the items (one per record family, keyed by region + clientId, or per
 * user; `lambdas/core/ledger/ledger-doc.ts`), read through each entity kind's own parse.
 */
import { familyKey, userKey } from '../core/ledger/entity-key';
import type { AnyEntityKind } from '../core/ledger/entity-kind';
import { versionTime } from '../core/ledger/event-version';
import { LedgerDocError, parseLedgerDoc } from '../core/ledger/ledger-doc';
import { ENTITY_KINDS } from '../entities';
import type { KnownFamily } from '../entities/record-family/known';
import { recordAt } from '../entities/record-family/model';
import type { KnownUser } from '../entities/user/known';
import type { UserId } from '../entities/user/platform-steps';
import type { EntityRef, LedgerView, PlacedRef } from './ledger-view';

/**
 * What the view reads: one item by key, and every user item the ledger holds. A stored item
 * that is not a document at all (not JSON, say) is refused by `unparsableItem`, naming its key.
 */
export interface LedgerItems {
  read(key: string): Promise<unknown>;
  /** The items of every user (a table scan): the only way to list users, whose keys are hashes. */
  users(): AsyncIterable<{ readonly key: string; readonly item: unknown }>;
}

const kindOf = (entity: EntityRef): AnyEntityKind =>
  entity.kind === 'user' ? ENTITY_KINDS.user : ENTITY_KINDS['record-family'];

const keyOf = (entity: EntityRef): string =>
  entity.kind === 'user' ? userKey(entity.loginUserId) : familyKey(entity.region, entity.clientId);

/**
 * An item that does not parse stops the plan (nothing can say whether its entity is ours): the
 * error names the item's key so that an operator can repair or delete it.
 */
export const unparsableItem = (key: string, error: LedgerDocError): LedgerDocError =>
  new LedgerDocError(
    `the ledger item ${key} does not parse (${error.message}): the plan cannot tell whether its entity is ours; repair or delete the item under that key, then plan again`,
  );

/** An item, parsed. */
const parsed = (raw: unknown, kind: AnyEntityKind, key: string) => {
  try {
    return parseLedgerDoc(raw, kind.name, kind.parts);
  } catch (error) {
    if (!(error instanceof LedgerDocError)) throw error;
    throw unparsableItem(key, error);
  }
};

/**
 * What a plan asks of one item, kept instead of the item: a user scope's scan holds every user's
 * item, and the parsed items of 100 000 users would not fit the function's memory.
 */
interface ItemFacts {
  readonly newestEventAt: number | undefined;
  /** The user is ours; for a family, the campaigns holding a record we created. */
  readonly ours: boolean | ReadonlySet<string>;
}

type Doc = NonNullable<ReturnType<typeof parseLedgerDoc>>;

const factsOf = (doc: Doc, kind: EntityRef['kind']): ItemFacts => {
  const versions = [...doc.events.map((e) => e.v), ...(doc.snapshot ? [doc.snapshot.v] : [])];
  const newestEventAt = versions.length === 0 ? undefined : Math.max(...versions.map(versionTime));
  if (kind === 'user') {
    const place = (doc.known as KnownUser).place;
    return {
      newestEventAt,
      ours: place !== undefined && 'user' in place && place.user.origin !== 'outside',
    };
  }
  // Only that campaign's place counts: the family's record elsewhere makes a hand-made one here
  // no more ours (it would otherwise be planned as a delete instead of reported as unmanaged).
  const campaigns = Object.entries((doc.known as KnownFamily).places).flatMap(
    ([campaign, place]) => {
      const record = 'unsure' in place ? undefined : recordAt(place);
      return record !== undefined && record.born !== '' ? [campaign] : [];
    },
  );
  return { newestEventAt, ours: new Set(campaigns) };
};

/** A user, or a family's record in one campaign, the ledger knows is there and made by us. */
const ours = (placed: PlacedRef, facts: ItemFacts): boolean =>
  typeof facts.ours === 'boolean'
    ? facts.ours
    : placed.kind === 'record' && facts.ours.has(placed.campaign);

/**
 * One plan's view of the ledger. Each item is read and parsed once per view (a plan asks of an
 * entity up to three times, and of a family once per scope campaign), so a view belongs to one
 * plan: a new plan makes a new view and reads the ledger as it is then.
 */
export class LedgerItemView implements LedgerView {
  readonly #items: LedgerItems;
  readonly #facts = new Map<string, Promise<ItemFacts | undefined>>();
  /** The users' scan ran to its end: a user it did not find has no item, and is not read. */
  #usersListed = false;

  constructor(options: { readonly items: LedgerItems }) {
    this.#items = options.items;
  }

  #factsOf(entity: EntityRef): Promise<ItemFacts | undefined> {
    const key = keyOf(entity);
    const known = this.#facts.get(key);
    if (known !== undefined) return known;
    if (entity.kind === 'user' && this.#usersListed) return Promise.resolve(undefined);
    const kind = kindOf(entity);
    const facts = this.#items.read(key).then((raw) => {
      const doc = parsed(raw, kind, key);
      return doc === undefined ? undefined : factsOf(doc, entity.kind);
    });
    // A failed read is not kept: it stops this plan, and must not answer a retry.
    facts.catch(() => this.#facts.delete(key));
    this.#facts.set(key, facts);
    return facts;
  }

  async newestEventAt(entity: EntityRef): Promise<number | undefined> {
    return (await this.#factsOf(entity))?.newestEventAt;
  }

  async createdByUs(placed: PlacedRef): Promise<boolean> {
    const facts = await this.#factsOf(placed);
    return facts !== undefined && ours(placed, facts);
  }

  async *createdUsers(): AsyncIterable<string> {
    const kind = ENTITY_KINDS.user;
    for await (const { key, item } of this.#items.users()) {
      const doc = parsed(item, kind, key);
      if (doc === undefined) continue;
      const { loginUserId } = doc.id as UserId;
      const facts = factsOf(doc, 'user');
      // Kept, so the plan's questions about these users (in every invocation of a plan that
      // takes several, each of which lists them again) are answered without reading each item.
      this.#facts.set(userKey(loginUserId), Promise.resolve(facts));
      if (facts.ours === true) yield loginUserId;
    }
    this.#usersListed = true;
  }
}

/** The ledger's items in an in-memory store (the local run, tests). */
export const inMemoryLedgerItems = (store: {
  read(key: string): Promise<unknown>;
  keys(): string[];
}): LedgerItems => ({
  read: (key) => store.read(key),
  users: async function* () {
    for (const key of store.keys().filter((k) => k.startsWith('user#'))) {
      yield { key, item: await store.read(key) };
    }
  },
});
