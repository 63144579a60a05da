import { LedgerTable, type LedgerTableOptions } from '../core/aws/ledger-table';
import { docOf } from '../core/ledger/doc-attribute';
import { PROFILE_PREFIX, type ProfileLister } from './scim-profiles';

/**
 * SCIM's items in the ledger table (a Scan filtered on their key prefix): only an unfiltered
 * `GET /Users` lists them, which Okta's test connection asks for a page of.
 */
export const dynamoDbProfileLister = (options: LedgerTableOptions): ProfileLister => {
  const table = new LedgerTable(options);
  return async function* () {
    for await (const item of table.scan(PROFILE_PREFIX)) yield docOf(item);
  };
};
