import { changeCampaignRecordStatus } from '../actions/change-campaign-record-status';
import { createLambdaHandler } from '../core/entry/wiring';
import { recordFamily } from '../entities/record-family';

/** Lambda entry point of the change-campaign-record-status action (SQS batch, EventBridge event). */
export const handler = createLambdaHandler(changeCampaignRecordStatus, { entity: recordFamily });
