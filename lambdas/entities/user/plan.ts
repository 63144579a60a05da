import type { Version } from '../../core/ledger/event-version';
import { isUnsureUser, type KnownUser, sureUser } from './known';
import { type UserEvent, type UserPlace, type UserState, userAt } from './model';

export type UserStep =
  /** query-existence: settles a doubt, or looks before the first add (is it someone else's?). */
  | { readonly kind: 'read' }
  /** add-user with the fields of the join `of`. */
  | {
      readonly kind: 'add';
      readonly of: Version;
      readonly place: UserPlace;
      /** The ledger knows the user there is its own: ALREADY_EXISTS is then in place. */
      readonly ours: boolean;
    }
  /** delete-user. */
  | { readonly kind: 'remove'; readonly gone: Version }
  /** The platform holds someone else's user where the replay wants ours: nothing may be sent. */
  | { readonly kind: 'conflict' };

/**
 * The calls that bring the platform from what the ledger knows of a user to `desired`: a read
 * first when the known state is in doubt, or before the first add of a user the ledger knows
 * nothing about; then at most one write.
 */
export const planUser = (
  desired: UserState,
  known: KnownUser,
  events: readonly UserEvent[],
): UserStep[] => {
  if (isUnsureUser(known.place)) return [{ kind: 'read' }];
  const first = events[0];
  if (known.base === undefined && known.written !== true && first?.op.kind === 'join') {
    return [{ kind: 'read' }];
  }
  const want = desired.place;
  if (want === undefined) return [];
  const platform = sureUser(known.place);
  const there = userAt(platform);
  if ('gone' in want) {
    if (platform === undefined) return [{ kind: 'remove', gone: want.gone }];
    return there !== undefined && want.gone > there.at ? [{ kind: 'remove', gone: want.gone }] : [];
  }
  if (want.user.born === '') return [];
  if (there !== undefined) {
    if (there.born === '') return [{ kind: 'conflict' }];
    return want.user.at > there.at
      ? [{ kind: 'add', of: want.user.at, place: { user: want.user }, ours: true }]
      : [];
  }
  // Removed on the platform, outside the integration, after the newest join asked for it: not undone.
  if (
    platform !== undefined &&
    'gone' in platform &&
    platform.outside === true &&
    platform.gone >= want.user.at
  ) {
    return [];
  }
  return [{ kind: 'add', of: want.user.at, place: { user: want.user }, ours: false }];
};
