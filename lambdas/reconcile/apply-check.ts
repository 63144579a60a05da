/**
 * What `apply` checks before it sends anything: the plan is fresh (younger than the configured
 * age), no newer snapshot of its scope has been planned or applied since, and its deletes are
 * either within the gates or named by count (`--allow-deletes <count>`): the whole delete set or
 * none of it. The repairs it then sends are exactly the plan's, grouped by action.
 */
import type { MessageOf } from '../actions';
import { mapLimit } from '../core/entry/concurrency';
import { isRemoval, type PlanEntry, type RepairAction } from './categories';
import { WORKED_BY_AGENT, workedHoldReason } from './delete-gate';
import type { Plan } from './plan';
import type { PlatformReader } from './platform-reader';
import { PermanentRefusal } from './refusal';
import { isNewerSnapshot, type RunRecord, type ScopeState } from './run-history';

export const DEFAULT_PLAN_MAX_AGE_HOURS = 24;

/** The plan must not be applied; the message says why and what to do. */
export class PlanRefused extends PermanentRefusal {
  // Permanent: applying it again cannot succeed; plan again, or correct the command line. Its
  // code is STALE_PLAN, SUPERSEDED, DELETE_COUNT, NOT_RECORDED or PLAN_ALTERED.
  override readonly name = 'PlanRefused';
}

/**
 * The plan file is the one its run noted when it was written (`planDigest`), so the gates and
 * repairs `apply` reads from it are the ones that were planned. A run noted by a version from
 * before the digest has none: its file is checked by its header alone (plan-file.ts).
 */
export const checkRecorded = (
  plan: Pick<Plan, 'planId' | 'scope'>,
  digest: string,
  recorded: RunRecord | undefined,
): void => {
  if (recorded === undefined) {
    throw new PlanRefused(
      'NOT_RECORDED',
      `plan ${plan.planId} is not in this deployment's run history of scope ${plan.scope}: it was made for another deployment, or its run was never noted. Plan again.`,
    );
  }
  if (recorded.planSha256 !== undefined && recorded.planSha256 !== digest) {
    throw new PlanRefused(
      'PLAN_ALTERED',
      `the plan file is not the one plan ${plan.planId} wrote (its SHA-256 differs from the one noted with the run): it was edited or damaged since. Plan again.`,
    );
  }
};

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
    if (isRemoval(entry.category) && !decision.sendDeletes) continue;
    const list = grouped.get(entry.repair.action) ?? [];
    list.push(entry.repair.message);
    grouped.set(entry.repair.action, list);
  }
  return grouped;
};

/**
 * The plan's record deletes an agent has worked since it was made: each is searched again (by
 * clientId) and named when the platform now shows attempts on it. Deletes the plan already named
 * WORKED_BY_AGENT are left out: a person saw them and allowed the count. Hours may pass between a
 * plan and its apply, and agents work records all day; the plan's own check cannot see that.
 * `reader` is called only when there is a record to search (it may read a secret first).
 * `onWorked` hears of each as it is found, so a caller whose searches stop part-way (out of
 * time) still knows the ones found before.
 */
export const workedSincePlan = async (
  plan: Plan,
  reader: () => Pick<PlatformReader, 'search'>,
  options: { readonly concurrency?: number; readonly onWorked?: (entity: string) => void } = {},
): Promise<readonly string[]> => {
  const unworked = plan.entries.filter(
    (e): e is PlanEntry & { readonly repair: NonNullable<PlanEntry['repair']> } =>
      isRemoval(e.category) &&
      e.repair?.action === 'delete-campaign-record' &&
      e.reason !== WORKED_BY_AGENT,
  );
  if (unworked.length === 0) return [];
  const platform = reader();
  // After a search fails no other starts, and the ones in flight finish before it is thrown:
  // what they found is heard, whatever order the answers come in.
  let failure: { readonly error: unknown } | undefined;
  const worked = await mapLimit(unworked, options.concurrency ?? 4, async ({ entity, repair }) => {
    if (failure !== undefined) return undefined;
    // A plan file's repairs were checked against their action's schema when it was read
    // (parsePlan); a plan made in this process holds the planner's own.
    const { campaignName, region, clientId, previewRecordId } =
      repair.message as MessageOf<'delete-campaign-record'>;
    try {
      const found = await platform.search({
        campaignName,
        ...(region === undefined ? {} : { region }),
        ...(clientId === undefined ? { previewRecordId } : { clientId }),
      });
      if (!found.some((record) => record.workAttempts > 0)) return undefined;
    } catch (error) {
      failure ??= { error };
      return undefined;
    }
    options.onWorked?.(entity);
    return entity;
  });
  if (failure !== undefined) throw failure.error;
  return worked.filter((entity) => entity !== undefined);
};

/**
 * The decision once the records to delete have been searched again: every delete held when an
 * agent has worked one of them since the plan (as the plan would have held them), named there.
 */
export const recheckDeletes = async (
  plan: Plan,
  decision: ApplyDecision,
  reader: () => Pick<PlatformReader, 'search'>,
): Promise<ApplyDecision & { readonly workedSincePlan: readonly string[] }> => {
  const worked = decision.sendDeletes ? await workedSincePlan(plan, reader) : [];
  return worked.length === 0
    ? { ...decision, workedSincePlan: worked }
    : { sendDeletes: false, heldDeletes: plan.deletes.count, workedSincePlan: worked };
};

/** The plan with its whole delete set held for a person, for `reason` besides any it had. */
export const withDeletesHeld = (plan: Plan, reason: string): Plan =>
  plan.deletes.count === 0
    ? plan
    : {
        ...plan,
        deletes: {
          ...plan.deletes,
          held: true,
          heldBecause: [...plan.deletes.heldBecause, reason],
        },
      };

/**
 * The plan with the deletes an agent worked while it was made named WORKED_BY_AGENT, and held
 * as the plan would have held them had it seen the attempts: a person allows their count
 * (`--allow-deletes`) as with any worked delete, and apply does not search those again.
 */
export const withWorkedDeletes = (plan: Plan, worked: readonly string[]): Plan => {
  const named = new Set(worked);
  const entries = plan.entries.map((e) =>
    isRemoval(e.category) && named.has(e.entity) ? { ...e, reason: WORKED_BY_AGENT } : e,
  );
  const count = entries.filter((e) => isRemoval(e.category) && e.reason === WORKED_BY_AGENT).length;
  return withDeletesHeld({ ...plan, entries }, workedHoldReason(count));
};
