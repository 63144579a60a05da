import { LedgerTable, type LedgerTableOptions } from '../core/aws/ledger-table';
import { docOf } from '../core/ledger/doc-attribute';
import { DynamoDbLedgerStore } from '../core/ledger/dynamodb-ledger-store';
import type { LedgerItems } from './ledger-item-view';

/** The ledger's items in the deployment's table: one by key, and every user's (a Scan). */
export const dynamoDbLedgerItems = (options: LedgerTableOptions): LedgerItems => {
  const store = new DynamoDbLedgerStore(options);
  const table = new LedgerTable(options);
  return {
    read: (key) => store.read(key),
    users: async function* () {
      for await (const item of table.scan('user#')) {
        const doc = docOf(item);
        if (doc !== undefined) yield doc;
      }
    },
  };
};
