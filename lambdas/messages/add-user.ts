import * as z from 'zod/mini';
import { correlationId, email, nonEmpty, occurredAt } from './common';

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
