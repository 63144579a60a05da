import { createLambdaHandler } from '../core/lambda-handler';

/** Lambda entry point of the delete-campaign-record action (SQS batch, EventBridge event). */
export const handler = createLambdaHandler('delete-campaign-record');
