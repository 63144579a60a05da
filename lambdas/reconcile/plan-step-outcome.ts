/**
 * What the stack's reconcile run does after its plan step, as the function answers it and the
 * state machine's `Choice` matches it (lib/reconciliation.ts, through lambdas/deployment-contract.ts):
 * one definition, so a renamed outcome cannot leave the state machine matching the old word.
 */
export const PLAN_STEP_OUTCOME = {
  /** Out of time: the answers so far are kept, and the next invocation goes on. */
  continue: 'continue',
  /** The repairs go (all, or all but the deletes held for a person). */
  apply: 'apply',
  /** Nothing goes until a person acts (a plan-only scope, or deletes held and nothing else). */
  held: 'held',
  noChanges: 'no-changes',
  refused: 'refused',
} as const;

export type PlanStepOutcome = (typeof PLAN_STEP_OUTCOME)[keyof typeof PLAN_STEP_OUTCOME];
