import { LedgerTable, type LedgerTableOptions } from '../core/aws/ledger-table';
import { docOf } from '../core/ledger/doc-attribute';
import { DynamoDbLedgerStore } from '../core/ledger/dynamodb-ledger-store';
import { LedgerDocError } from '../core/ledger/ledger-doc';
import { type LedgerItems, unparsableItem } from './ledger-item-view';

/**
 * A stored document that is not deflated JSON fails here, before the view sees it: named by its
 * key here, as the view names an item that does not parse.
 */
const namedBy =
  (key: string) =>
  (error: unknown): never => {
    if (error instanceof LedgerDocError) throw unparsableItem(key, error);
    throw error;
  };

/** The ledger's items in the deployment's table: one by key, and every user's (a Scan). */
export const dynamoDbLedgerItems = (options: LedgerTableOptions): LedgerItems => {
  const store = new DynamoDbLedgerStore(options);
  const table = new LedgerTable(options);
  return {
    read: (key) => store.read(key).catch(namedBy(key)),
    users: async function* () {
      for await (const item of table.scan('user#')) {
        const key = item.pk?.S ?? '';
        let doc: unknown;
        try {
          doc = docOf(item);
        } catch (error) {
          namedBy(key)(error);
        }
        if (doc !== undefined) yield { key, item: doc };
      }
    },
  };
};
