/**
 * A plan is kept by one function for the stack's run and `reconcile plan`: what comes after it
 * (and so its run's status) follows one rule, and its file, report and run are written alike.
 */
import { describe, expect, it } from 'vitest';
import type { Category } from '../../../lambdas/reconcile/categories';
import { InMemoryRunHistory } from '../../../lambdas/reconcile/in-memory-run-history';
import type { Plan } from '../../../lambdas/reconcile/plan';
import { planDigest } from '../../../lambdas/reconcile/plan-file';
import { type PlanNext, planNext, recordPlan } from '../../../lambdas/reconcile/plan-record';

const NONE: Record<Category, number> = {
  create: 0,
  update: 0,
  delete: 0,
  unmanaged: 0,
  conflict: 0,
  skipped: 0,
  'in-sync': 1,
};

/** A plan with these counts (entries left out: the rule reads the header). */
const planOf = (counts: Partial<Record<Category, number>>, deletesHeld = false): Plan => ({
  version: 1,
  planId: 'roster-abc-1',
  createdAt: '2026-11-25T08:00:00.000Z',
  scope: 'roster',
  kind: 'users',
  snapshot: {
    id: 'abc',
    file: 'roster.csv',
    exportedAt: '2026-11-25T06:00:00.000Z',
    rowCount: 3,
    sha256: 'a'.repeat(64),
  },
  counts: { ...NONE, ...counts },
  deletes: {
    count: counts.delete ?? 0,
    gate: 25,
    scopeSize: 3,
    held: deletesHeld,
    heldBecause: deletesHeld ? ['the export shrank'] : [],
  },
  platformReads: 3,
  entries: [],
});

describe('what comes after a plan', () => {
  it.each([
    ['no changes', planOf({}), false, 'no-changes'],
    ['no changes, plan-only', planOf({}), true, 'no-changes'],
    ['changes within the gates', planOf({ create: 1, delete: 1 }), false, 'apply'],
    ['changes of a plan-only scope', planOf({ create: 1 }), true, 'held'],
    ['deletes held, nothing else', planOf({ delete: 2 }, true), false, 'held'],
    ['deletes held beside other changes', planOf({ update: 1, delete: 2 }, true), false, 'apply'],
  ] as const)('%s: %s', (_name, plan, byPerson, next: PlanNext) => {
    expect(planNext(plan, byPerson)).toBe(next);
  });
});

describe('keeping a plan', () => {
  it.each([
    ['apply', 'planned'],
    ['held', 'held'],
    ['no-changes', 'no-changes'],
  ] as const)('writes its file and report and notes its run (%s: %s)', async (next, status) => {
    // Prepare
    const history = new InMemoryRunHistory();
    const written = new Map<string, string>();
    const plan = planOf(next === 'no-changes' ? {} : { create: 1 });

    // Act
    const text = await recordPlan(
      { plan, warnings: ['a warning'] },
      next,
      {
        planLocation: 'p.jsonl',
        reportLocation: 'r.jsonl',
        write: async (file, body) => {
          written.set(file, body);
        },
      },
      history,
    );

    // Assess
    expect(written.get('plan')).toBe(text);
    expect(JSON.parse(text.split('\n')[0] ?? '')).toMatchObject({ planId: plan.planId });
    expect(JSON.parse(written.get('report')?.split('\n')[0] ?? '')).toMatchObject({
      type: 'run',
      planId: plan.planId,
      outcome: next,
    });
    expect(await history.run('roster', plan.planId)).toEqual({
      runId: plan.planId,
      scope: 'roster',
      status,
      at: plan.createdAt,
      counts: plan.counts,
      planLocation: 'p.jsonl',
      planSha256: planDigest(text),
      reportLocation: 'r.jsonl',
      warnings: ['a warning'],
    });
    expect(await history.scope('roster')).toEqual({
      newest: {
        exportedAt: plan.snapshot.exportedAt,
        rowCount: plan.snapshot.rowCount,
        sha256: plan.snapshot.sha256,
        planLocation: 'p.jsonl',
      },
      ...(next === 'no-changes' ? { lastSuccessAt: plan.createdAt } : {}),
    });
  });
});
