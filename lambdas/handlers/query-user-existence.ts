import { queryUserExistence } from '../actions/query-user-existence';
import { eventBridgeResults } from '../core/aws/event-bridge-result-publisher';
import { createLambdaHandler } from '../core/entry/wiring';

/** Lambda entry point of the query-user-existence action (SQS batch, EventBridge event, direct invocation). */
export const handler = createLambdaHandler(queryUserExistence, { results: eventBridgeResults });
