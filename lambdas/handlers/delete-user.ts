import { deleteUser } from '../actions/delete-user';
import { createLambdaHandler } from '../core/entry/wiring';
import { user } from '../entities/user';

/** Lambda entry point of the delete-user action (SQS batch, EventBridge event). */
export const handler = createLambdaHandler(deleteUser, { entity: user });
