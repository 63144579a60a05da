import * as z from 'zod/mini';
import type { ReadAction } from '../core/pipeline/action';
import { alreadyApplied, type Outcome } from '../core/pipeline/outcome';
import { pickDefined } from '../core/pipeline/pick-defined';
import type { ProvisioningResponse } from '../core/platform/platform-responses';
import { correlationId, nonEmpty, occurredAt } from '../messages/common';

export const queryUserExistenceMessage = z.strictObject({
  correlationId,
  occurredAt,
  loginUserId: nonEmpty(),
});

export type QueryUserExistenceMessage = z.infer<typeof queryUserExistenceMessage>;

/** What a query answers: published on the result bus, returned to a direct caller. */
export interface UserExistenceResult {
  /** SUCCESS when the user exists on the platform, NOT_FOUND when not. */
  readonly status: 'SUCCESS' | 'NOT_FOUND';
  readonly exists: boolean;
  /** Presence in the backing contact-center instance (null when the user does not exist). */
  readonly cloudConnectStatus: 'EXISTS' | 'NOT_FOUND' | null;
  readonly connectUserId: string | null;
}

/** The existence answer of a query-existence outcome (add-user reads it too). */
export const existenceResult = (outcome: Outcome): UserExistenceResult => {
  const exists = outcome.code === 'SUCCESS';
  const body = outcome.body as ProvisioningResponse | undefined;
  const status = body?.cloudConnectStatus;
  return {
    status: exists ? 'SUCCESS' : 'NOT_FOUND',
    exists,
    cloudConnectStatus: status === 'EXISTS' || status === 'NOT_FOUND' ? status : null,
    connectUserId: body?.connectUserId ?? null,
  };
};

export const queryUserExistence: ReadAction<'query-user-existence', QueryUserExistenceMessage> = {
  name: 'query-user-existence',
  service: 'provisioning',
  endpoint: 'query-existence',
  kind: 'read',
  schema: queryUserExistenceMessage,
  requestFields: (message) => pickDefined(message, ['loginUserId']),
  execute: async (message, platform, call) => {
    const outcome = await platform.send(queryUserExistence, message, call);
    if (outcome.code === 'NOT_FOUND') {
      const answered = alreadyApplied(outcome, 'NOT_FOUND', 'user does not exist');
      return { ...answered, result: existenceResult(outcome) };
    }
    return outcome.category === 'success'
      ? { ...outcome, result: existenceResult(outcome) }
      : outcome;
  },
};
