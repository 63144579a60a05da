import { addUser } from '../actions/add-user';
import { createLambdaHandler } from '../core/entry/wiring';
import { user } from '../entities/user';

/** Lambda entry point of the add-user action (SQS batch, EventBridge event). */
export const handler = createLambdaHandler(addUser, { entity: user });
