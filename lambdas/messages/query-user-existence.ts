import * as z from 'zod/mini';
import { correlationId, nonEmpty } from './common';

export const queryUserExistenceMessage = z.strictObject({
  correlationId,
  loginUserId: nonEmpty(),
});

export type QueryUserExistenceMessage = z.infer<typeof queryUserExistenceMessage>;
