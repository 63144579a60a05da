/**
 * What `apply` checks before it sends anything: the plan is fresh (younger than the configured
 * age), no newer snapshot of its scope has been planned or applied since, and its deletes are
 * either within the gates or named by count (`--allow-deletes <count>`): the whole delete set or
 * none of it. The repairs it then sends are exactly the plan's, grouped by action.
 */
import type { Plan, RepairAction } from './plan';
import { isNewerSnapshot, type ScopeState } from './run-history';

export const DEFAULT_PLAN_MAX_AGE_HOURS = 24;

/** The plan must not be applied; the message says why and what to do. */
export class PlanRefused extends Error {
  override readonly name = 'PlanRefused';
  constructor(
    /** STALE_PLAN, SUPERSEDED or DELETE_COUNT. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ApplyDecision {
  /** The deletes go too; false when they are held (the rest still goes). */
  readonly sendDeletes: boolean;
  readonly heldDeletes: number;
}

export const checkApplicable = (
  plan: Plan,
  options: {
    readonly now: number;
    readonly maxAgeHours: number;
    readonly state: ScopeState;
    /** `--allow-deletes <count>`. */
    readonly allowDeletes?: number | undefined;
  },
): ApplyDecision => {
  const ageHours = (options.now - Date.parse(plan.createdAt)) / 3_600_000;
  if (ageHours > options.maxAgeHours) {
    throw new PlanRefused(
      'STALE_PLAN',
      `plan ${plan.planId} was made ${ageHours.toFixed(1)} h ago, more than ${options.maxAgeHours} h: the platform may have moved on. Plan again.`,
    );
  }
  const mine = {
    exportedAt: plan.snapshot.exportedAt,
    rowCount: plan.snapshot.rowCount,
    sha256: plan.snapshot.sha256,
  };
  for (const [what, mark] of [
    ['planned', options.state.newest],
    ['applied', options.state.applied],
  ] as const) {
    if (mark !== undefined && isNewerSnapshot(mark, mine)) {
      throw new PlanRefused(
        'SUPERSEDED',
        `a newer snapshot of scope ${plan.scope} (exported ${mark.exportedAt}) has been ${what} since: apply its plan instead`,
      );
    }
  }
  const { count, held } = plan.deletes;
  const allowed = options.allowDeletes;
  if (allowed !== undefined && allowed !== count) {
    throw new PlanRefused(
      'DELETE_COUNT',
      `--allow-deletes ${allowed} does not name the plan's ${count} deletes: nothing was sent`,
    );
  }
  const sendDeletes = count > 0 && (!held || allowed === count);
  return { sendDeletes, heldDeletes: count > 0 && !sendDeletes ? count : 0 };
};

/** The plan's repair messages, by action; deletes only when they go. */
export const repairsByAction = (
  plan: Plan,
  decision: ApplyDecision,
): ReadonlyMap<RepairAction, readonly Record<string, unknown>[]> => {
  const grouped = new Map<RepairAction, Record<string, unknown>[]>();
  for (const entry of plan.entries) {
    if (entry.repair === undefined) continue;
    if (entry.category === 'delete' && !decision.sendDeletes) continue;
    const list = grouped.get(entry.repair.action) ?? [];
    list.push(entry.repair.message);
    grouped.set(entry.repair.action, list);
  }
  return grouped;
};
