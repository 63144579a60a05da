import * as z from 'zod/mini';
import type { StoredEvent } from '../../core/ledger/entity-kind';
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
 * What each op does to it is its operation's (`operations/`); `replay.ts` applies them in order.
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
