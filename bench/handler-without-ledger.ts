import { addOrUpdateCampaignRecord } from '../lambdas/actions/add-or-update-campaign-record';
import { createLambdaHandler } from '../lambdas/core/entry/wiring';
import { InMemoryLedgerStore } from '../lambdas/core/ledger/in-memory-ledger-store';
import { recordFamily } from '../lambdas/entities/record-family';

/**
 * The bench's "without the ledger" side: the add-or-update handler exactly as deployed, its
 * ledger on the same path but keeping its items in memory instead of the DynamoDB table, and
 * bundled with the stack's options. A write has one path (the ledger), so the table's round trips
 * are what this side leaves out.
 */
export const handler = createLambdaHandler(addOrUpdateCampaignRecord, {
  entity: recordFamily,
  ledgerStore: new InMemoryLedgerStore(),
});
