import type { StepAnswer } from '../../core/ledger/entity-kind';
import {
  baseAfterFinding,
  baseAfterUnanswered,
  baseAfterWrite,
  type KnownUser,
  NOTHING_THERE,
  SOMEONE_ELSES,
  sureUser,
  userAfterRead,
} from './known';
import type { UserPlace } from './model';
import type { UserStep } from './steps';

/** What a step's call told the ledger, beyond its status. */
export type UserFinding =
  /** A read found the user there. */
  | 'there'
  /** A read found no user. */
  | 'absent'
  /** add-user answered ALREADY_EXISTS with no earlier attempt of the call unanswered: not ours. */
  | 'theirs'
  /** delete-user removed a user (it did not answer NOT_FOUND). */
  | 'removed'
  /** Nothing beyond its status: it failed or went unanswered, added the user, found ours there, or deleted nothing. */
  | 'nothing-more';

export interface UserAnswer extends StepAnswer {
  readonly finding: UserFinding;
}

/** What the ledger knows of a user after a step's call ended as `answer`. Pure. */
export const learnUser = (known: KnownUser, step: UserStep, answer: UserAnswer): KnownUser => {
  if (step.kind === 'conflict' || answer.status === 'failed') return known;
  if (step.kind === 'read') {
    if (answer.finding !== 'there' && answer.finding !== 'absent') return known;
    const exists = answer.finding === 'there';
    return {
      place: userAfterRead(known.place, exists),
      // Until the ledger writes, what it finds is what was there before it: someone else's user, or none.
      base: baseAfterFinding(known.base, exists ? SOMEONE_ELSES : NOTHING_THERE),
    };
  }
  const after: UserPlace = step.kind === 'add' ? step.place : { gone: step.gone };
  if (answer.status === 'uncertain') {
    const before = sureUser(known.place);
    return {
      place: { unsure: { ...(before === undefined ? {} : { before }), after } },
      base: baseAfterUnanswered(known.base),
    };
  }
  if (step.kind === 'add' && answer.finding === 'theirs') {
    // Someone else made it since the ledger last looked.
    return { place: SOMEONE_ELSES, base: baseAfterFinding(known.base, SOMEONE_ELSES) };
  }
  // A user the ledger removed without knowing what was there before was someone else's.
  const before =
    step.kind === 'delete' && answer.finding === 'removed' ? SOMEONE_ELSES : NOTHING_THERE;
  return { place: after, base: baseAfterWrite(known.base, before) };
};
