import { transferCampaignRecord } from '../actions/transfer-campaign-record';
import { createLambdaHandler } from '../core/entry/wiring';
import { recordFamily } from '../entities/record-family';

/** Lambda entry point of the transfer-campaign-record action (SQS batch, EventBridge event). */
export const handler = createLambdaHandler(transferCampaignRecord, { entity: recordFamily });
