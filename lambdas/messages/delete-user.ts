import * as z from 'zod/mini';
import { correlationId, nonEmpty, occurredAt } from './common';

export const deleteUserMessage = z.strictObject({
  correlationId,
  occurredAt,
  loginUserId: nonEmpty(),
});

export type DeleteUserMessage = z.infer<typeof deleteUserMessage>;
