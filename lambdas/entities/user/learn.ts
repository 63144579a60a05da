import type { StepAnswer } from '../../core/ledger/entity-kind';
import {
  baseAfterFinding,
  baseAfterUnanswered,
  type KnownUser,
  NOTHING_THERE,
  SOMEONE_ELSES,
  sureUser,
  userAfterRead,
} from './known';
import { operationOf } from './operations';
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

/**
 * What the ledger knows of a user after a step's call ended as `answer`: a read's finding, or a
 * doubt for a write that got no answer, here; an answered write teaches what its operation says. Pure.
 */
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
  const write = operationOf(step.kind);
  if (answer.status === 'uncertain') {
    const before = sureUser(known.place);
    return {
      place: { unsure: { ...(before === undefined ? {} : { before }), after: write.after(step) } },
      base: baseAfterUnanswered(known.base),
    };
  }
  return write.learn(known, step, answer);
};
