import { createHash } from 'node:crypto';
import { DEFAULT_CLIENT_ID_FIELD_NAME } from '../../messages/rules';

/**
 * A record's data items: what an add-or-update sends, and whether the record the platform holds
 * has them. The one comparison of the live path (is the record read back the one the events
 * want) and of reconciliation (does the record differ from its export row).
 */

export interface DataItem {
  readonly key: string;
  readonly value: string;
  readonly displayOrder?: number;
}

/** The names a record's clientId item may be under: the default, and each name the messages set. */
export const clientIdKeys = (
  messages: Iterable<{ readonly clientIdFieldName?: string | undefined }>,
): ReadonlySet<string> => {
  const keys = new Set([DEFAULT_CLIENT_ID_FIELD_NAME]);
  for (const { clientIdFieldName } of messages) if (clientIdFieldName) keys.add(clientIdFieldName);
  return keys;
};

/** A record as a search returns it: its clientId and its items. */
export interface HeldRecord {
  readonly clientId: string;
  readonly previewRecordData: readonly DataItem[];
}

/**
 * The record's items that a message could have sent: without the item an add stores under the
 * clientId field name, holding the clientId (spec: `clientIdFieldName`). An item under such a
 * name with another value, or under a key `wanted` carries, is data like any other.
 */
export const heldItems = (
  record: HeldRecord,
  idKeys: ReadonlySet<string>,
  wanted: readonly DataItem[] = [],
): DataItem[] =>
  record.previewRecordData.filter(
    (item) =>
      !(
        item.value === record.clientId &&
        idKeys.has(item.key) &&
        !wanted.some((w) => w.key === item.key)
      ),
  );

/**
 * The keys whose items differ between the record and `wanted`: an item missing or with another
 * value, or another display order where the wanted item gives one (the platform numbers items
 * sent without one, so a record read back never shows what was sent), and an item the record
 * holds under a key `wanted` lacks, when `counts` says that key is compared. Items are matched by
 * key (keys are unique in a record); their order in the list is not the order of display.
 */
export const differingKeys = (
  record: HeldRecord,
  wanted: readonly DataItem[],
  idKeys: ReadonlySet<string>,
  counts: (key: string) => boolean = () => true,
): string[] => {
  const held = new Map(heldItems(record, idKeys, wanted).map((item) => [item.key, item]));
  const keys = new Set<string>();
  for (const item of wanted) {
    const found = held.get(item.key);
    if (
      found === undefined ||
      found.value !== item.value ||
      (item.displayOrder !== undefined && found.displayOrder !== item.displayOrder)
    ) {
      keys.add(item.key);
    }
  }
  const wantedKeys = new Set(wanted.map((item) => item.key));
  for (const key of held.keys()) if (!wantedKeys.has(key) && counts(key)) keys.add(key);
  return [...keys].sort();
};

/** The record holds exactly the items `wanted` (besides its clientId item). */
export const holdsData = (
  record: HeldRecord,
  wanted: readonly DataItem[],
  idKeys: ReadonlySet<string>,
): boolean => differingKeys(record, wanted, idKeys).length === 0;

/**
 * The identity of a data list, as the ledger keeps it: keys, values and the display orders given,
 * in order. Items without a display order hash as they always have, so that what the ledger
 * persisted before display orders counted stays the same.
 */
export const dataHash = (items: readonly DataItem[]): string =>
  createHash('sha256')
    .update(
      JSON.stringify(
        items.map((item) =>
          item.displayOrder === undefined
            ? [item.key, item.value]
            : [item.key, item.value, item.displayOrder],
        ),
      ),
    )
    .digest('hex')
    .slice(0, 32);

/**
 * The data a record read back holds, as the ledger compares it: the identity of the newest of
 * `sent` (data lists of the family's events, oldest first) that the record holds, or, when it
 * holds none of them, the identity of its own items (which no list it does not hold shares).
 */
export const heldDataHash = (
  record: HeldRecord,
  sent: readonly (readonly DataItem[])[],
  idKeys: ReadonlySet<string>,
): string => {
  for (let i = sent.length - 1; i >= 0; i--) {
    const items = sent[i];
    if (items !== undefined && holdsData(record, items, idKeys)) return dataHash(items);
  }
  return dataHash(heldItems(record, idKeys));
};
