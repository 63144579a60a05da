import { callMayHaveBeenApplied, type Outcome } from '../outcome';
import type { FieldValue } from './entity';
import type { StepResult } from './entity-ledger';

/** What a write left on the platform, from its outcome alone. */
export const appliedBy = (outcome: Outcome): StepResult['applied'] =>
  outcome.category === 'success'
    ? { kind: 'applied' }
    : callMayHaveBeenApplied(outcome)
      ? { kind: 'uncertain' }
      : { kind: 'unchanged' };

export const stepResult = (outcome: Outcome, applied = appliedBy(outcome)): StepResult => ({
  outcome,
  applied,
});

/** The named ledger fields of `values`. */
export const pickFields = (
  values: Readonly<Record<string, FieldValue>>,
  names: readonly string[],
): Record<string, FieldValue> =>
  Object.fromEntries(Object.entries(values).filter(([name]) => names.includes(name)));
