import type { UserPlace } from './model';

/**
 * What the ledger knows the platform holds for a user: there (and whether this integration
 * created it) or not, or, after a call that got no answer, both candidates until a read.
 */
export type KnownUserPlace =
  | UserPlace
  | { readonly unsure: { readonly before?: UserPlace; readonly after?: UserPlace } };

export interface KnownUser {
  readonly place?: KnownUserPlace;
  /** What the platform held before the ledger's first write (found by looking first). */
  readonly base?: UserPlace;
  /** The ledger has written to the platform for this user: its base is fixed. */
  readonly written?: true;
}

export const UNKNOWN_USER: KnownUser = {};

export const isUnsureUser = (
  place: KnownUserPlace | undefined,
): place is { readonly unsure: { readonly before?: UserPlace; readonly after?: UserPlace } } =>
  place !== undefined && 'unsure' in place;

export const sureUser = (place: KnownUserPlace | undefined): UserPlace | undefined =>
  place === undefined || isUnsureUser(place) ? undefined : place;

/** What the ledger knows after a read found the user there or not. */
export const userAfterRead = (place: KnownUserPlace | undefined, exists: boolean): UserPlace => {
  const unsure = isUnsureUser(place) ? place.unsure : undefined;
  const candidates = unsure ? [unsure.after, unsure.before] : [place as UserPlace | undefined];
  const match = candidates.find((c) => c !== undefined && 'user' in c === exists);
  if (match !== undefined) return match;
  if (exists) return { user: { born: '', at: '' } };
  // It was there before the call (as far as the ledger knew) and is not: removed outside, and
  // nothing older than what put it there brings it back. A call that meant to add it did not.
  const before = unsure ? unsure.before : (place as UserPlace | undefined);
  return before !== undefined && 'user' in before
    ? { gone: before.user.at, outside: true }
    : { gone: '' };
};
