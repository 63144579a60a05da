import { addOrUpdateCampaignRecord } from '../actions/add-or-update-campaign-record';
import { createLambdaHandler } from '../core/entry/wiring';
import { recordFamily } from '../entities/record-family';

/** Lambda entry point of the add-or-update-campaign-record action (SQS batch, EventBridge event). */
export const handler = createLambdaHandler(addOrUpdateCampaignRecord, { entity: recordFamily });
