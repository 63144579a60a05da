import * as z from 'zod/mini';
import { correlationId, nonEmpty } from './common';

export const deleteUserMessage = z.strictObject({
  correlationId,
  loginUserId: nonEmpty(),
});

export type DeleteUserMessage = z.infer<typeof deleteUserMessage>;
