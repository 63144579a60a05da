import type { UserGone, UserPlace, UserRecord, UserState } from './model';

/**
 * A user the ledger knows is there: as the model has it, or ours by an item of the ledger's
 * first schema, which kept no versions (every add the ledger holds is newer than the ones that
 * made it).
 */
export type KnownUserRecord = UserRecord | { readonly origin: 'ours-unversioned' };

/** Where the ledger knows the user is, without doubt. */
export type SureUserPlace = { readonly user: KnownUserRecord } | { readonly gone: UserGone };

/**
 * What the ledger knows the platform holds for a user: there (and who made it) or not, or, after
 * a call that got no answer, both candidates until a read.
 */
export type KnownUserPlace =
  | SureUserPlace
  | { readonly unsure: { readonly before?: SureUserPlace; readonly after?: SureUserPlace } };

/**
 * What the platform held for the user before the ledger's first write (where the replay starts),
 * and whether that write happened. Until it has, each finding replaces the base; once it has,
 * the base stays, and one unknown then is set by the first write that is answered.
 */
export type UserBase =
  /** Nothing found, nothing written: the ledger looks before its first add (is it someone else's?). */
  | { readonly stage: 'unseen' }
  /** Found by a read, or by an add answered ALREADY_EXISTS; nothing written yet. */
  | { readonly stage: 'found'; readonly place: UserPlace }
  /** The ledger has written for this user: `place` is what the platform held before. */
  | { readonly stage: 'written'; readonly place: UserPlace }
  /** The ledger has written, unanswered, before anything was found: a read no longer tells the base. */
  | { readonly stage: 'written-unseen' };

export interface KnownUser {
  /** Absent while nothing is known. */
  readonly place?: KnownUserPlace;
  readonly base: UserBase;
}

export const UNKNOWN_USER: KnownUser = { base: { stage: 'unseen' } };

/** Someone else's user, there (found before the ledger's first add, or by a read that no call of ours explains). */
export const SOMEONE_ELSES: UserPlace = { user: { origin: 'outside' } };

/** Not there, and nothing keeps an add out. */
export const NOTHING_THERE: UserPlace = { gone: { by: 'nothing' } };

export const isUnsureUser = (
  place: KnownUserPlace | undefined,
): place is Extract<KnownUserPlace, { readonly unsure: unknown }> =>
  place !== undefined && 'unsure' in place;

export const sureUser = (place: KnownUserPlace | undefined): SureUserPlace | undefined =>
  place === undefined || isUnsureUser(place) ? undefined : place;

export const knownUserAt = (place: KnownUserPlace | undefined): KnownUserRecord | undefined => {
  const sure = sureUser(place);
  return sure !== undefined && 'user' in sure ? sure.user : undefined;
};

/** Where the replay starts: what the platform held before the ledger's first write, if known. */
export const baseState = (base: UserBase): UserState =>
  'place' in base ? { place: base.place } : {};

const written = (base: UserBase): boolean =>
  base.stage === 'written' || base.stage === 'written-unseen';

/** The base after a finding (a read, an add's ALREADY_EXISTS): replaced until the ledger writes. */
export const baseAfterFinding = (base: UserBase, found: UserPlace): UserBase =>
  written(base) ? base : { stage: 'found', place: found };

/** The base after a write that got no answer: fixed as it is. */
export const baseAfterUnanswered = (base: UserBase): UserBase =>
  base.stage === 'unseen'
    ? { stage: 'written-unseen' }
    : base.stage === 'found'
      ? { stage: 'written', place: base.place }
      : base;

/** The base after a write the platform answered: `before` when nothing was known of it. */
export const baseAfterWrite = (base: UserBase, before: UserPlace): UserBase =>
  base.stage === 'written'
    ? base
    : { stage: 'written', place: 'place' in base ? base.place : before };

/** What the ledger knows after a read found the user there or not. */
export const userAfterRead = (
  place: KnownUserPlace | undefined,
  exists: boolean,
): SureUserPlace => {
  const unsure = isUnsureUser(place) ? place.unsure : undefined;
  const candidates = unsure ? [unsure.after, unsure.before] : [sureUser(place)];
  const match = candidates.find((c) => c !== undefined && 'user' in c === exists);
  if (match !== undefined) return match;
  if (exists) return SOMEONE_ELSES;
  // It was there before the call (as far as the ledger knew) and is not: removed outside, and
  // nothing older than the add of ours that put it there brings it back. A call that meant to
  // add it did not.
  const before = unsure ? unsure.before : sureUser(place);
  return before !== undefined && 'user' in before && before.user.origin === 'ours'
    ? { gone: { by: 'outside', after: before.user.at } }
    : NOTHING_THERE;
};

/** Whose user the platform holds, as far as the ledger knows without doubt. */
export type Whose = 'ours' | 'theirs' | 'absent';

/**
 * Whose user the platform holds as the ledger knows it (what SCIM answers from); undefined while
 * it cannot tell: never seen, or in doubt after a call that got no answer. A refused add leaves
 * someone else's user as a doubt to look at again: still not ours.
 */
export const whoseUser = (known: KnownUser | undefined): Whose | undefined => {
  const place = known?.place;
  if (place === undefined) return undefined;
  if (isUnsureUser(place)) {
    const { before, after } = place.unsure;
    return [before, after].some(
      (p) => p !== undefined && 'user' in p && p.user.origin === 'outside',
    )
      ? 'theirs'
      : undefined;
  }
  if (!('user' in place)) return 'absent';
  return place.user.origin === 'outside' ? 'theirs' : 'ours';
};
