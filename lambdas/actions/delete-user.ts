import * as z from 'zod/mini';
import type { WriteAction } from '../core/pipeline/action';
import { pickDefined } from '../core/pipeline/pick-defined';
import { correlationId, nonEmpty, occurredAt } from '../messages/common';

export const deleteUserMessage = z.strictObject({
  correlationId,
  occurredAt,
  loginUserId: nonEmpty(),
});

export type DeleteUserMessage = z.infer<typeof deleteUserMessage>;

export const deleteUser: WriteAction<'delete-user', DeleteUserMessage> = {
  name: 'delete-user',
  service: 'provisioning',
  endpoint: 'delete-user',
  kind: 'write',
  schema: deleteUserMessage,
  requestFields: (message) => pickDefined(message, ['loginUserId']),
  destructive: () => true,
  ordering: {
    entity: 'user',
    rank: 'delete',
    name: (message) => ({ id: { loginUserId: message.loginUserId } }),
    op: () => ({ kind: 'delete' }),
  },
};
