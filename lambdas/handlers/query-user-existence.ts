import { createLambdaHandler } from '../core/lambda-handler';

/** Lambda entry point of the query-user-existence action (SQS batch, EventBridge event, direct invocation). */
export const handler = createLambdaHandler('query-user-existence');
