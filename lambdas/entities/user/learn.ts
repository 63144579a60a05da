import type { StepAnswer } from '../../core/ledger/entity-kind';
import { type KnownUser, sureUser, userAfterRead } from './known';
import type { UserPlace } from './model';
import type { UserStep } from './plan';

export interface UserAnswer extends StepAnswer {
  /** A read's finding. */
  readonly exists?: boolean;
  /** add-user answered ALREADY_EXISTS with no earlier attempt of the call unanswered: not ours. */
  readonly theirs?: boolean;
  /** delete-user removed someone (not NOT_FOUND). */
  readonly removed?: boolean;
}

const SOMEONE_ELSES: UserPlace = { user: { born: '', at: '' } };

/** What the ledger knows of a user after a step's call ended as `answer`. Pure. */
export const learnUser = (known: KnownUser, step: UserStep, answer: UserAnswer): KnownUser => {
  if (step.kind === 'conflict' || answer.status === 'failed') return known;
  if (step.kind === 'read') {
    if (answer.exists === undefined) return known;
    const place = userAfterRead(known.place, answer.exists);
    return {
      ...known,
      place,
      // Until the ledger writes, what it finds is what was there before it: someone else's user, or none.
      ...(known.written === true ? {} : { base: answer.exists ? SOMEONE_ELSES : { gone: '' } }),
    };
  }
  const after: UserPlace = step.kind === 'add' ? step.place : { gone: step.gone };
  if (answer.status === 'uncertain') {
    const before = sureUser(known.place);
    return {
      ...known,
      place: { unsure: { ...(before === undefined ? {} : { before }), after } },
      written: true,
    };
  }
  if (step.kind === 'add' && answer.theirs === true) {
    // Someone else made it since the ledger last looked.
    return {
      ...known,
      place: SOMEONE_ELSES,
      ...(known.written === true ? {} : { base: SOMEONE_ELSES }),
    };
  }
  const base =
    known.base ??
    (step.kind === 'remove' && answer.removed === true
      ? SOMEONE_ELSES
      : ({ gone: '' } as UserPlace));
  return { ...known, place: after, base, written: true };
};
