import * as z from 'zod/mini';
import { correlationId, nonEmpty, occurredAt } from './common';

export const queryUserExistenceMessage = z.strictObject({
  correlationId,
  occurredAt,
  loginUserId: nonEmpty(),
});

export type QueryUserExistenceMessage = z.infer<typeof queryUserExistenceMessage>;
