import { addOrUpdateCampaignRecord } from '../lambdas/actions/add-or-update-campaign-record';
import { createLambdaHandler } from '../lambdas/core/wiring';

/**
 * The bench's "without the ledger" side: the add-or-update handler exactly as deployed, but
 * built with the entity ledger left out, and bundled with the stack's options.
 */
export const handler = createLambdaHandler(addOrUpdateCampaignRecord, { ledger: 'off' });
