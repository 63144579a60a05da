import { searchCampaignRecords } from '../actions/search-campaign-records';
import { eventBridgeResults } from '../core/aws/event-bridge-result-publisher';
import { createLambdaHandler } from '../core/entry/wiring';

/** Lambda entry point of the search-campaign-records action (SQS batch, EventBridge event, direct invocation). */
export const handler = createLambdaHandler(searchCampaignRecords, { results: eventBridgeResults });
