import { deleteCampaignRecord } from '../actions/delete-campaign-record';
import { createLambdaHandler } from '../core/entry/wiring';
import { recordFamily } from '../entities/record-family';

/** Lambda entry point of the delete-campaign-record action (SQS batch, EventBridge event). */
export const handler = createLambdaHandler(deleteCampaignRecord, { entity: recordFamily });
