/**
 * A plan made, kept: its file, its report and its run in the history, written the same way by
 * the stack's run (run-function.ts) and `reconcile plan` (ops/reconcile/reconcile-plan.ts), so
 * the two cannot note one plan differently.
 */
import { CHANGES, isRemoval } from './categories';
import { hasChanges, type Plan } from './plan';
import { planDigest, serializePlan } from './plan-file';
import { PLAN_STEP_OUTCOME } from './plan-step-outcome';
import type { RunHistory, RunStatus } from './run-history';
import { reportLines } from './run-report';

/** What comes after a plan: its repairs go, it waits for a person, or there is nothing to do. */
export type PlanNext = 'apply' | 'held' | 'no-changes';

/**
 * What comes after `plan`. `byPerson`: only a person may apply it (the stack's run of a
 * plan-only scope); otherwise its apply, the stack's or an operator's, sends what the gates
 * allow, and the plan is held only when that is nothing (its deletes held, and no other change).
 */
export const planNext = (plan: Plan, byPerson: boolean): PlanNext => {
  if (!hasChanges(plan)) return PLAN_STEP_OUTCOME.noChanges;
  const others = CHANGES.some((c) => !isRemoval(c) && plan.counts[c] > 0);
  return byPerson || (plan.deletes.held && !others)
    ? PLAN_STEP_OUTCOME.held
    : PLAN_STEP_OUTCOME.apply;
};

const STATUS: Readonly<Record<PlanNext, RunStatus>> = {
  apply: 'planned',
  held: 'held',
  'no-changes': 'no-changes',
};

export interface PlanFiles {
  /** Where the plan and its report are, as the run history names them. */
  readonly planLocation: string;
  readonly reportLocation: string;
  write(file: 'plan' | 'report', text: string): Promise<void>;
}

/**
 * Writes the plan and its report, notes its snapshot as the scope's newest, and records its run
 * (a success when there is nothing to do). Returns the plan file's text.
 */
export const recordPlan = async (
  run: { readonly plan: Plan; readonly warnings: readonly string[] },
  next: PlanNext,
  files: PlanFiles,
  history: RunHistory,
): Promise<string> => {
  const { plan, warnings } = run;
  const planText = serializePlan(plan);
  await files.write('plan', planText);
  await files.write('report', `${reportLines(plan, { outcome: next }).join('\n')}\n`);
  const snapshot = {
    exportedAt: plan.snapshot.exportedAt,
    rowCount: plan.snapshot.rowCount,
    sha256: plan.snapshot.sha256,
  };
  await history.notePlanned(plan.scope, { ...snapshot, planLocation: files.planLocation });
  await history.record({
    runId: plan.planId,
    scope: plan.scope,
    status: STATUS[next],
    at: plan.createdAt,
    counts: plan.counts,
    ...(plan.deletes.held ? { deletesHeld: plan.deletes.count } : {}),
    planLocation: files.planLocation,
    planSha256: planDigest(planText),
    reportLocation: files.reportLocation,
    ...(warnings.length > 0 ? { warnings } : {}),
  });
  if (next === 'no-changes') await history.noteSuccess(plan.scope, plan.createdAt);
  return planText;
};
