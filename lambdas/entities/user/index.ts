import * as z from 'zod/mini';
import { userKey } from '../../core/ledger/entity-key';
import type { EntityKind } from '../../core/ledger/entity-kind';
import { describeUser } from './describe';
import {
  baseState,
  isUnsureUser,
  type KnownUser,
  knownUserAt,
  NOTHING_THERE,
  UNKNOWN_USER,
} from './known';
import { learnUser } from './learn';
import { type UserId, type UserOp, type UserState, userAt } from './model';
import type { UserAnswer } from './operation';
import { operationOf } from './operations';
import { USER_PARTS } from './persisted';
import { runUserStep } from './platform-steps';
import { replayUser } from './replay';
import { type UserStep, userSteps } from './steps';

export type { UserId } from './model';

/**
 * What a ledger item of the first schema (no version) still tells: whether the user was there
 * and created by this integration. Read as a doubt to settle: the platform is asked first.
 */
const FIRST_SCHEMA = z.object({ present: z.optional(z.unknown()), ours: z.optional(z.unknown()) });

const migrate = (raw: unknown): KnownUser | undefined => {
  const parsed = z.safeParse(FIRST_SCHEMA, raw);
  if (!parsed.success) return undefined;
  const { present, ours } = parsed.data;
  if (present === true && ours === true) {
    return {
      place: { unsure: { after: { user: { origin: 'ours-unversioned' } } } },
      base: { stage: 'written', place: NOTHING_THERE },
    };
  }
  if (present === false) {
    return { place: { unsure: { after: NOTHING_THERE } }, base: { stage: 'written-unseen' } };
  }
  return undefined;
};

/** A user (loginUserId) as the ledger orders it. */
export const user: EntityKind<UserId, UserOp, UserState, KnownUser, UserStep, UserAnswer> = {
  name: 'user',
  parts: USER_PARTS,
  keyOf: (id) => userKey(id.loginUserId),
  unknown: UNKNOWN_USER,
  migrate,
  // Someone else's user refused an add: looked at again before the next try (an operator may
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
  start: (known, snapshot) => snapshot ?? baseState(known.base),
  replay: replayUser,
  steps: userSteps,
  run: runUserStep,
  learn: learnUser,
  createdByUs: (known) => ({
    kind: 'entity',
    ours: (knownUserAt(known.place)?.origin ?? 'outside') !== 'outside',
  }),
  isGone: (desired, known) =>
    userAt(desired.place) === undefined &&
    knownUserAt(known.place) === undefined &&
    !isUnsureUser(known.place),
  // Whether it is there, and the newest event that asked for it (an add of a user of ours asks the platform again).
  values: (state) => {
    if (state.place === undefined) return null;
    if ('gone' in state.place) return 'absent';
    return state.place.user.origin === 'ours' ? state.place.user.at : 'outside';
  },
  keep: (state, events) => {
    const user = userAt(state.place);
    const at = user?.origin === 'ours' ? user.at : undefined;
    return events.filter((event) => event.v === at && event.op.kind === 'add');
  },
  alreadyCode: (op, doubted) => operationOf(op.kind).alreadyCode(doubted),
  describe: describeUser,
};
