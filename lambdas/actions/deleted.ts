import type { ApplyDecision, StepResult } from '../core/ledger/entity-ledger';
import { stepResult } from '../core/ledger/step-result';
import type { Outcome } from '../core/outcome';

/**
 * A delete's outcome for the ledger (records and users alike): gone is gone, whoever removed
 * it; only our own earlier attempt says ALREADY_DELETED, anyone else's is ALREADY_ABSENT.
 */
export const deleted = (outcome: Outcome, decision: ApplyDecision): StepResult => {
  if (outcome.code === 'ALREADY_DELETED' && !decision.ourEarlierAttempt) {
    return stepResult(
      { ...outcome, code: 'ALREADY_ABSENT', message: `${outcome.message}; nothing to delete` },
      { kind: 'absent' },
    );
  }
  return outcome.category === 'success'
    ? stepResult(outcome, { kind: 'absent' })
    : stepResult(outcome);
};
