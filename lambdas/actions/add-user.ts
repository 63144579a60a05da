import * as z from 'zod/mini';
import type { WriteAction } from '../core/pipeline/action';
import { pickDefined } from '../core/pipeline/pick-defined';
import type { UserFields, UserOp } from '../entities/user/model';
import { correlationId, email, nonEmpty, occurredAt } from '../messages/common';

export const addUserMessage = z.strictObject({
  correlationId,
  occurredAt,
  loginUserId: nonEmpty().check(z.describe('Case-sensitive login id, usually an e-mail address.')),
  firstName: nonEmpty(),
  lastName: nonEmpty(),
  primaryEmailAddr: z
    .optional(email)
    .check(
      z.describe('Required for directory-linked environments; ignored for SAML environments.'),
    ),
  secondaryEmailAddr: z.optional(email),
  userTemplateName: nonEmpty(),
  createInCloudConnect: z.optional(z.boolean()),
});

export type AddUserMessage = z.infer<typeof addUserMessage>;

export const addUser: WriteAction<'add-user', AddUserMessage> = {
  name: 'add-user',
  service: 'provisioning',
  endpoint: 'add-user',
  kind: 'write',
  schema: addUserMessage,
  requestFields: (message) =>
    pickDefined(message, [
      'loginUserId',
      'firstName',
      'lastName',
      'primaryEmailAddr',
      'secondaryEmailAddr',
      'userTemplateName',
      'createInCloudConnect',
    ]),
  ordering: {
    entity: 'user',
    rank: 'add',
    name: (message) => ({ id: { loginUserId: message.loginUserId } }),
    op: (message): UserOp => ({
      kind: 'add',
      user: pickDefined(message, [
        'firstName',
        'lastName',
        'userTemplateName',
        'primaryEmailAddr',
        'secondaryEmailAddr',
        'createInCloudConnect',
      ]) as UserFields,
    }),
  },
};
