import {
  baseAfterFinding,
  baseAfterUnanswered,
  type KnownUser,
  NOTHING_THERE,
  SOMEONE_ELSES,
  sureUser,
  userAfterRead,
} from './known';
import type { UserAnswer } from './operation';
import { operationOf } from './operations';
import type { UserStep } from './steps';

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
