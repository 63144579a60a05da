import * as z from 'zod/mini';
import type { Effect, Replayed, StoredEvent } from '../../core/ledger/entity-kind';
import type { Version } from '../../core/ledger/event-version';
import type { Gone } from '../../core/ledger/gone';

/** Who a user is on the platform. */
export interface UserId {
  readonly loginUserId: string;
}

/** What an operator does about a user this integration did not create (USER_EXISTS_NOT_OURS). */
export const NOT_OURS_TO_DO =
  'check that it is the same person, then delete this dead letter (or the other user, and redrive)';

/**
 * A user on the platform, as the provisioning spec describes it: there or not, by `loginUserId`.
 * `replayUser` applies a user's events in version order, each as the platform applies its
 * request: add-user creates the user (ALREADY_EXISTS when there), delete-user removes it. Pure.
 */

/** What add-user sends besides the login id (kept so the ledger can add the user again). */
export const USER_FIELDS = z.object({
  firstName: z.string(),
  lastName: z.string(),
  userTemplateName: z.string(),
  primaryEmailAddr: z.optional(z.string()),
  secondaryEmailAddr: z.optional(z.string()),
  createInCloudConnect: z.optional(z.boolean()),
});
export type UserFields = Readonly<z.output<typeof USER_FIELDS>>;

/**
 * What a user event does, named as its action does (add-user, delete-user): the one definition of
 * the type and of how the ledger reads it back (`persisted.ts`), so a new kind is one edit here.
 * A change that items already written would not parse needs a new schema version there.
 */
export const USER_OP = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('add'), user: USER_FIELDS }),
  z.object({ kind: z.literal('delete') }),
]);
export type UserOp = z.output<typeof USER_OP>;

export type UserEvent = StoredEvent<UserOp>;

/** A user on the platform, and who made it. */
export type UserRecord =
  /** Created by this integration: by the add `born`; `at` is the newest add that asked for it since. */
  | { readonly origin: 'ours'; readonly born: Version; readonly at: Version }
  /** Made outside the integration, before it first asked for it: someone else's, never adopted. */
  | { readonly origin: 'outside' };

/** Why a user is not there, which says which adds bring it (back). */
export type UserGone = Gone;

export type UserPlace = { readonly user: UserRecord } | { readonly gone: UserGone };

/** `place` is absent while nothing is known (no event, nothing read). */
export interface UserState {
  readonly place?: UserPlace;
}

export const userAt = (place: UserPlace | undefined): UserRecord | undefined =>
  place !== undefined && 'user' in place ? place.user : undefined;

const applyOp = (
  state: UserState,
  v: Version,
  op: UserOp,
): { state: UserState; effect: Effect } => {
  const user = userAt(state.place);
  if (op.kind === 'add') {
    if (user === undefined) {
      return {
        state: { place: { user: { origin: 'ours', born: v, at: v } } },
        effect: { kind: 'applied' },
      };
    }
    if (user.origin === 'outside') {
      return {
        state,
        effect: {
          kind: 'conflict',
          code: 'USER_EXISTS_NOT_OURS',
          reason: `a user with this loginUserId was on the platform before this integration first asked for it, so this integration did not create it: ${NOT_OURS_TO_DO}`,
        },
      };
    }
    // Asked for again: the platform answers ALREADY_EXISTS, or adds it if it went missing.
    return { state: { place: { user: { ...user, at: v } } }, effect: { kind: 'applied' } };
  }
  if (user === undefined) {
    return {
      state: state.place === undefined ? { place: { gone: { by: 'delete', v } } } : state,
      effect: {
        kind: 'none',
        code: 'ALREADY_ABSENT',
        reason: 'the user is not there at this event’s time; nothing to delete',
      },
    };
  }
  return { state: { place: { gone: { by: 'delete', v } } }, effect: { kind: 'applied' } };
};

/** The user after its events, applied once each in version order to `start`. */
export const replayUser = (start: UserState, events: readonly UserEvent[]): Replayed<UserState> => {
  let state = start;
  const effects = new Map<string, Effect>();
  for (const event of events) {
    const next = applyOp(state, event.v, event.op);
    state = next.state;
    effects.set(event.key, next.effect);
  }
  return { state, effects };
};
