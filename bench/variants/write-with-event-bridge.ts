import { addOrUpdateCampaignRecord } from '../../lambdas/actions/add-or-update-campaign-record';
import { eventBridgeResults } from '../../lambdas/core/aws/event-bridge-result-publisher';
import { createLambdaHandler } from '../../lambdas/core/entry/wiring';
import { recordFamily } from '../../lambdas/entities/record-family';

/**
 * Cold-start option: the add-or-update handler carrying the EventBridge client it never uses,
 * as every handler did when the shared wiring built the result publisher for all of them.
 */
export const handler = createLambdaHandler(addOrUpdateCampaignRecord, {
  entity: recordFamily,
  results: eventBridgeResults,
});
