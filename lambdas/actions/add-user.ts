import * as z from 'zod/mini';
import type { Action } from '../core/action';
import { userLocation } from '../core/ledger/locations';
import { appliedBy, stepResult } from '../core/ledger/step-result';
import { alreadyApplied, type Outcome } from '../core/outcome';
import { pickDefined } from '../core/pick-defined';
import type { CallOptions, PlatformCaller } from '../core/platform-caller';
import { correlationId, email, nonEmpty, occurredAt } from '../messages/common';
import { existenceResult, queryUserExistence } from './query-user-existence';

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

/** add-user answered ALREADY_EXISTS: in place only if the user also is where the message asks. */
const confirmExistingUser = async (
  message: AddUserMessage,
  outcome: Outcome,
  platform: PlatformCaller,
  call: CallOptions,
): Promise<Outcome> => {
  // Confirm the existing user also satisfies createInCloudConnect before calling it done.
  const existing = await platform.send(
    queryUserExistence,
    { loginUserId: message.loginUserId },
    call,
  );
  if (existing.category === 'retryable') return existing;
  const found = existenceResult(existing);
  if (!found.exists) {
    return {
      ...outcome,
      category: 'retryable',
      message: 'add-user said ALREADY_EXISTS but query-existence does not find the user',
    };
  }
  if (message.createInCloudConnect === true && found.cloudConnectStatus !== 'EXISTS') {
    return {
      ...outcome,
      message:
        'user already exists on the platform but not in the backing contact-center instance; the API cannot add it there for an existing user',
    };
  }
  return alreadyApplied(outcome, 'ALREADY_EXISTS', 'user was already provisioned');
};

export const addUser: Action<'add-user', AddUserMessage> = {
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
  execute: async (message, platform, call) => {
    const outcome = await platform.send(addUser, message, call);
    return outcome.code === 'ALREADY_EXISTS'
      ? confirmExistingUser(message, outcome, platform, call)
      : outcome;
  },
  ordering: {
    kind: 'create',
    location: (message) => userLocation(message.loginUserId),
    sets: () => ({}),
    apply: async (message, decision, platform, call) => {
      const added = await platform.send(addUser, message, call);
      const outcome =
        added.code === 'ALREADY_EXISTS'
          ? await confirmExistingUser(message, added, platform, call)
          : added;
      if (outcome.code !== 'ALREADY_EXISTS' || outcome.category !== 'success') {
        return stepResult(
          outcome,
          outcome.category === 'success' ? { kind: 'applied', ours: true } : appliedBy(outcome),
        );
      }
      // In place already: honest only if we brought it about (an earlier delivery, or an
      // earlier try of this call that failed unanswered).
      if (
        decision.ourEarlierAttempt ||
        added.afterDoubt === true ||
        (decision.entity === 'present' && decision.ours)
      ) {
        return stepResult(outcome, { kind: 'applied', ours: true });
      }
      return stepResult(
        {
          ...outcome,
          category: 'permanent',
          code: 'USER_EXISTS_NOT_OURS',
          message:
            'a user with this loginUserId already exists on the platform and this integration did not create it: check that it is the same person, then delete this dead letter (or the other user and redrive)',
        },
        { kind: 'unchanged' },
      );
    },
  },
};
