import type { Describe } from '../../core/ledger/entity-kind';
import { versionWhen as when } from '../../core/ledger/event-version';
import { isUnsureUser, type KnownUser, type SureUserPlace } from './known';
import type { UserGone, UserOp, UserState } from './model';

/** What a user's ledger item means to a person (`ops trace`): whether it is there, who made it, since when. */

const userGone = (gone: UserGone): string => {
  switch (gone.by) {
    case 'nothing':
      return 'no (since before the ledger)';
    case 'delete':
      return `no (since ${when(gone.v)})`;
    case 'outside':
      return `no (removed outside this integration, after ${when(gone.after)})`;
  }
};

const userPlace = (place: SureUserPlace | undefined): string => {
  if (place === undefined) return 'unknown';
  if ('gone' in place) return userGone(place.gone);
  switch (place.user.origin) {
    case 'outside':
      return 'yes, someone else’s (there before this integration asked for it)';
    case 'ours':
      return `yes, created by this integration ${when(place.user.born)}`;
    case 'ours-unversioned':
      return 'yes, created by this integration before the ledger kept versions';
  }
};

export const describeUser: Describe<UserOp, UserState, KnownUser> = {
  // A user's events act on the user itself: no campaign column.
  target: () => undefined,
  state: (desired, known) => [
    `  desired            ${userPlace(desired.place)}`,
    `  on the platform    ${
      isUnsureUser(known.place)
        ? 'in doubt: a call got no answer (the next message reads it first)'
        : userPlace(known.place)
    }`,
  ],
};
