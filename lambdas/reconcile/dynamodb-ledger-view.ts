/**
 * THE ADAPTER TO THE LEDGER'S ITEM FORMAT. Everything else in reconciliation reads the ledger
 * through `LedgerView`; this one file knows how today's items are keyed and what they hold, and
 * is the file to rewrite when the ledger's format changes (issue 23: one item per record family
 * keyed by region + clientId, with its events).
 *
 * Today's format, best effort:
 * - a record's item is keyed per campaign (`recordLocation(region, campaign, clientId)`), so a
 *   family is read as the items of the scope's campaigns (one GetItem each);
 * - the item holds versions (`<occurredAt ms>.<rank>.<hash>`), not times: the newest event is the
 *   newest version it mentions;
 * - ids are hashed in the keys, so the ledger cannot list the users it created:
 *   `createdUsers()` yields nothing, and the planner's other candidates (the roster and the
 *   previous snapshot) must cover them (docs/decisions.md, "Reconciliation").
 */
import type { ItemClient } from '../core/aws/dynamodb-json-client';
import { DynamoDbLedgerStore } from '../core/ledger/dynamodb-ledger-store';
import type { EntityDoc } from '../core/ledger/entity';
import { versionTime } from '../core/ledger/event-version';
import { recordLocation, userLocation } from '../core/ledger/locations';
import type { EntityRef, LedgerView } from './ledger-view';

/** What the adapter reads: one ledger document by key (the ledger stores' `read`). */
export interface LedgerDocReader {
  read(key: string): Promise<EntityDoc | undefined>;
}

export interface LedgerItemViewOptions {
  readonly reader: LedgerDocReader;
  /** The scope's campaigns: today's items are per campaign, so a family is looked up in each. */
  readonly campaigns?: readonly string[];
}

const versionsOf = (doc: EntityDoc): string[] => [
  ...doc.settled.map((key) => key.slice(key.lastIndexOf('@') + 1)),
  ...Object.values(doc.fields).map((field) => field.v),
  ...[doc.since, doc.deletedAt, doc.bornAt, doc.movedTo?.v, doc.arrivedAt].filter(
    (v): v is string => v !== undefined,
  ),
];

export class LedgerItemView implements LedgerView {
  readonly #reader: LedgerDocReader;
  readonly #campaigns: readonly string[];

  constructor(options: LedgerItemViewOptions) {
    this.#reader = options.reader;
    this.#campaigns = options.campaigns ?? [];
  }

  async #docs(entity: EntityRef): Promise<EntityDoc[]> {
    const keys =
      entity.kind === 'user'
        ? [userLocation(entity.loginUserId)]
        : this.#campaigns.map((c) => recordLocation(entity.region, c, entity.clientId));
    const docs = await Promise.all(keys.map((key) => this.#reader.read(key)));
    return docs.filter((doc): doc is EntityDoc => doc !== undefined);
  }

  async newestEventAt(entity: EntityRef): Promise<number | undefined> {
    const times = (await this.#docs(entity))
      .flatMap(versionsOf)
      .map(versionTime)
      .filter(Number.isFinite);
    return times.length === 0 ? undefined : Math.max(...times);
  }

  async createdByUs(entity: EntityRef): Promise<boolean> {
    return (await this.#docs(entity)).some((doc) => doc.present === true && doc.ours === true);
  }

  /** Today's keys are hashes: no id can be listed. */
  async *createdUsers(): AsyncIterable<string> {}
}

/** The view over the deployment's ledger table. */
export const dynamoDbLedgerView = (options: {
  readonly tableName: string;
  readonly client?: ItemClient;
  readonly campaigns?: readonly string[];
}): LedgerView =>
  new LedgerItemView({
    reader: new DynamoDbLedgerStore({
      tableName: options.tableName,
      ...(options.client === undefined ? {} : { client: options.client }),
    }),
    ...(options.campaigns === undefined ? {} : { campaigns: options.campaigns }),
  });
