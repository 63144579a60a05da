import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { PlanEntry, RepairAction, ScopeKind } from '../../../lambdas/reconcile/categories';
import type { LedgerView } from '../../../lambdas/reconcile/ledger-view';
import type { Plan } from '../../../lambdas/reconcile/plan';
import { REPO_ROOT } from '../../support/repo-paths';

/** usersPlan's export time: a repair's occurredAt must be it. */
export const EXPORTED_AT = '2026-11-25T06:00:00.000Z';

/** The repair that adds user a@example.com, as a users plan carries it. */
export const ADD_USER_REPAIR: NonNullable<PlanEntry['repair']> = {
  action: 'add-user',
  message: {
    loginUserId: 'a@example.com',
    firstName: 'A',
    lastName: 'B',
    userTemplateName: 'T',
    occurredAt: EXPORTED_AT,
  },
};

type PlanRest = Omit<Plan, 'version' | 'planId' | 'createdAt' | 'scope' | 'kind' | 'snapshot'>;

/** A `kind` plan `p1` of scope `s`, over an export of `rowCount` rows, with `rest`. */
export const scopePlan = (kind: ScopeKind, rowCount: number, rest: PlanRest): Plan => ({
  version: 1,
  planId: 'p1',
  createdAt: '2026-11-25T08:00:00.000Z',
  scope: 's',
  kind,
  snapshot: {
    id: 'abc',
    file: 'f.csv',
    exportedAt: EXPORTED_AT,
    rowCount,
    sha256: 'a'.repeat(64),
  },
  ...rest,
});

/** A users plan `p1` of scope `s`, over an export of `rowCount` rows, with `rest`. */
export const usersPlan = (rowCount: number, rest: PlanRest): Plan =>
  scopePlan('users', rowCount, rest);

/** The example day's first message of `action` (examples/), at the export's time. */
export const exampleRepair = (action: RepairAction): NonNullable<PlanEntry['repair']> => {
  const folder = join(REPO_ROOT, 'examples');
  const events = readdirSync(folder)
    .filter((file) => /^\d\d-.*\.json$/.test(file))
    .flatMap((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')) as unknown[]);
  const found = events.find(
    (e): e is { detail: Record<string, unknown> } =>
      (e as { 'detail-type'?: unknown })['detail-type'] === action,
  );
  if (found === undefined) throw new Error(`the example day sends no ${action}`);
  return { action, message: { ...found.detail, occurredAt: EXPORTED_AT } };
};

/**
 * `view`, whose newest event of every entity occurred at `at`: a producer that went on sending
 * after the export (the plan skips a change older than that event).
 */
export const withNewestEventsAt = (view: LedgerView, at: string): LedgerView => ({
  newestEventAt: async () => Date.parse(at),
  createdByUs: (placed) => view.createdByUs(placed),
  createdUsers: () => view.createdUsers(),
});

/** Each change skipped for a newer live event (NEWER_EVENT, no repair), or none, as `skipped`. */
export const expectSkippedAsNewer = (changes: readonly PlanEntry[], skipped: boolean): void => {
  for (const entry of changes) {
    expect(entry.reason === 'NEWER_EVENT').toBe(skipped);
    expect(entry.repair === undefined).toBe(skipped);
  }
};

/** A live event an hour before the export (06:00) and one an hour after: only the later skips. */
export const LIVE_EVENTS = [
  { liveEventAt: '2026-11-25T05:00:00.000Z', skipped: false },
  { liveEventAt: '2026-11-25T07:00:00.000Z', skipped: true },
] as const;
