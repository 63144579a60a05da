import * as z from 'zod/mini';
import type { Action } from '../core/action';
import { answerMeansApplied } from '../core/outcome';
import { pickDefined } from '../core/pick-defined';
import { correlationId, nonEmpty, occurredAt } from '../messages/common';

export const deleteUserMessage = z.strictObject({
  correlationId,
  occurredAt,
  loginUserId: nonEmpty(),
});

export type DeleteUserMessage = z.infer<typeof deleteUserMessage>;

export const deleteUser: Action<'delete-user', DeleteUserMessage> = {
  name: 'delete-user',
  service: 'provisioning',
  endpoint: 'delete-user',
  kind: 'write',
  schema: deleteUserMessage,
  requestFields: (message) => pickDefined(message, ['loginUserId']),
  execute: async (message, platform, call) =>
    answerMeansApplied(
      await platform.send(deleteUser, message, call),
      'NOT_FOUND',
      'ALREADY_DELETED',
      'user does not exist: already deleted',
    ),
  destructive: () => true,
  ordering: {
    entity: 'user',
    rank: 'delete',
    name: (message) => ({ id: { loginUserId: message.loginUserId } }),
    op: () => ({ kind: 'leave' }),
  },
};
