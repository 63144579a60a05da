import { addOrUpdateCampaignRecord } from '../../lambdas/actions/add-or-update-campaign-record';
import { createLambdaHandler } from '../../lambdas/core/entry/wiring';
import { recordFamily } from '../../lambdas/entities/record-family';

/**
 * Cold-start option: the add-or-update handler with its SDK clients left to the SDK's own
 * configuration (region from AWS_REGION, the default credential chain walked on each client's
 * first request), as before the functions handed over the environment's credentials.
 */
export const handler = createLambdaHandler(addOrUpdateCampaignRecord, {
  clientConfig: {},
  entity: recordFamily,
});
