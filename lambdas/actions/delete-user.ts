import * as z from 'zod/mini';
import type { Action } from '../core/action';
import { userLocation } from '../core/ledger/locations';
import { answerMeansApplied } from '../core/outcome';
import { pickDefined } from '../core/pick-defined';
import { correlationId, nonEmpty, occurredAt } from '../messages/common';
import { deleted } from './deleted';

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
    kind: 'delete',
    location: (message) => userLocation(message.loginUserId),
    sets: () => ({}),
    apply: async (message, decision, platform, call) =>
      deleted(await deleteUser.execute(message, platform, call), decision),
  },
};
