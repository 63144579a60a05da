import type { Version } from '../../core/ledger/event-version';
import { isUnsureUser, type KnownUser, type KnownUserRecord, sureUser } from './known';
import type { UserEvent, UserGone, UserPlace, UserState } from './model';

export type UserStep =
  /** query-existence: settles a doubt, or looks before the first add (is it someone else's?). */
  | { readonly kind: 'read' }
  /** add-user with the fields of the add `of`. */
  | {
      readonly kind: 'add';
      readonly of: Version;
      readonly place: UserPlace;
    }
  /** delete-user. */
  | { readonly kind: 'delete'; readonly gone: UserGone }
  /** The platform holds someone else's user where the replay wants ours: nothing may be sent. */
  | { readonly kind: 'conflict' };

/** A user wanted gone by `gone` is removed from `there`: a delete newer than every add of ours that asked for it. */
const removes = (gone: UserGone, there: KnownUserRecord): boolean => {
  if (gone.by === 'nothing') return false;
  const v = gone.by === 'delete' ? gone.v : gone.after;
  return there.origin === 'ours' ? v > there.at : true;
};

/** The add `at` asks for a user of ours again: newer than every add the ledger knows asked for it. */
const asksAgain = (at: Version, there: Exclude<KnownUserRecord, { origin: 'outside' }>): boolean =>
  there.origin === 'ours-unversioned' || at > there.at;

/**
 * The calls that bring the platform from what the ledger knows of a user to `desired`: a read
 * first when the known state is in doubt, or before the first add of a user the ledger knows
 * nothing about; then at most one write.
 */
export const userSteps = (
  desired: UserState,
  known: KnownUser,
  events: readonly UserEvent[],
): UserStep[] => {
  if (isUnsureUser(known.place)) return [{ kind: 'read' }];
  const first = events[0];
  if (known.base.stage === 'unseen' && first?.op.kind === 'add') return [{ kind: 'read' }];
  const want = desired.place;
  if (want === undefined) return [];
  const platform = sureUser(known.place);
  const there = platform !== undefined && 'user' in platform ? platform.user : undefined;
  if ('gone' in want) {
    if (platform === undefined) return [{ kind: 'delete', gone: want.gone }];
    return there !== undefined && removes(want.gone, there)
      ? [{ kind: 'delete', gone: want.gone }]
      : [];
  }
  const user = want.user;
  if (user.origin === 'outside') return [];
  const add: UserStep[] = [{ kind: 'add', of: user.at, place: { user } }];
  if (there !== undefined) {
    if (there.origin === 'outside') return [{ kind: 'conflict' }];
    return asksAgain(user.at, there) ? add : [];
  }
  // Removed on the platform, outside the integration, after the newest add asked for it: not undone.
  if (
    platform !== undefined &&
    'gone' in platform &&
    platform.gone.by === 'outside' &&
    platform.gone.after >= user.at
  ) {
    return [];
  }
  return add;
};
