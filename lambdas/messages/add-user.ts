import * as z from 'zod';
import { correlationId, email, nonEmpty } from './common';

export const addUserMessage = z.strictObject({
  correlationId,
  loginUserId: nonEmpty().describe('Case-sensitive login id, usually an e-mail address.'),
  firstName: nonEmpty(),
  lastName: nonEmpty(),
  primaryEmailAddr: email
    .optional()
    .describe('Required for directory-linked environments; ignored for SAML environments.'),
  secondaryEmailAddr: email.optional(),
  userTemplateName: nonEmpty(),
  createInCloudConnect: z.boolean().optional(),
});

export type AddUserMessage = z.infer<typeof addUserMessage>;
