import { userKey } from '../../core/ledger/entity-key';
import type { EntityKind } from '../../core/ledger/entity-kind';
import { isUnsureUser, type KnownUser, sureUser, UNKNOWN_USER } from './known';
import { learnUser, type UserAnswer } from './learn';
import { replayUser, type UserOp, type UserState, userAt } from './model';
import { USER_PARTS } from './persisted';
import { planUser, type UserStep } from './plan';
import { runUserStep, type UserId } from './platform-steps';

export type { UserId } from './platform-steps';

/**
 * What a ledger item of the first schema (no version) still tells: whether the user was there
 * and created by this integration. Read as a doubt to settle: the platform is asked first.
 */
const migrate = (raw: unknown): KnownUser | undefined => {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { present, ours } = raw as { present?: unknown; ours?: unknown };
  if (present === true && ours === true) {
    return {
      place: { unsure: { after: { user: { born: '0', at: '0' } } } },
      base: { gone: '' },
      written: true,
    };
  }
  if (present === false) return { place: { unsure: { after: { gone: '0' } } }, written: true };
  return undefined;
};

/** A user (loginUserId) as the ledger orders it. */
export const user: EntityKind<UserId, UserOp, UserState, KnownUser, UserStep, UserAnswer> = {
  name: 'user',
  parts: USER_PARTS,
  keyOf: (id) => userKey(id.loginUserId),
  unknown: UNKNOWN_USER,
  migrate,
  // Someone else's user refused a join: looked at again before the next try (an operator may
  // have removed it).
  recheck: (known) =>
    known.place === undefined || isUnsureUser(known.place)
      ? known
      : { ...known, place: { unsure: { before: known.place } } },
  doubt: (known) =>
    isUnsureUser(known.place)
      ? known
      : {
          ...known,
          place: { unsure: { ...(known.place === undefined ? {} : { before: known.place }) } },
        },
  start: (known, snapshot) => snapshot ?? (known.base === undefined ? {} : { place: known.base }),
  replay: replayUser,
  plan: planUser,
  run: runUserStep,
  learn: learnUser,
  createdByUs: (known) => ({
    kind: 'entity',
    ours: (userAt(sureUser(known.place))?.born ?? '') !== '',
  }),
  isGone: (desired, known) =>
    userAt(desired.place) === undefined &&
    userAt(sureUser(known.place)) === undefined &&
    !isUnsureUser(known.place),
  // Whether it is there, and the newest event that asked for it (a rejoin asks the platform again).
  values: (state) =>
    state.place === undefined ? null : 'gone' in state.place ? 'absent' : state.place.user.at,
  keep: (state, events) => {
    const at = userAt(state.place)?.at;
    return events.filter((event) => event.v === at && event.op.kind === 'join');
  },
  alreadyCode: (op, doubted) =>
    op.kind === 'join' ? 'ALREADY_EXISTS' : doubted ? 'ALREADY_DELETED' : 'ALREADY_ABSENT',
};
