import { createLambdaHandler } from '../core/lambda-handler';

/** Lambda entry point of the search-campaign-records action (SQS batch, EventBridge event, direct invocation). */
export const handler = createLambdaHandler('search-campaign-records');
