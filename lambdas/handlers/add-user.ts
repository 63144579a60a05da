import { addUser } from '../actions/add-user';
import { createLambdaHandler } from '../core/wiring';

/** Lambda entry point of the add-user action (SQS batch, EventBridge event). */
export const handler = createLambdaHandler(addUser);
