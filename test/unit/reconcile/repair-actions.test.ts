/**
 * Every reader of the repairs the category table names (categories.ts) follows it: the plan file
 * takes each repair action only in the entries of its row and its plan's kind, and an apply's
 * order sends every other repair before any removal. A repair added to the table is held here
 * without a line of this file changing; test/infra/reconciliation.test.ts holds the stack's
 * queues and grants to it.
 */
import { describe, expect, it } from 'vitest';
import {
  CATEGORIES,
  type Category,
  isDeleteRepair,
  isRemoval,
  REPAIR_ORDER,
  type RepairAction,
  repairActionOf,
  repairActionsOf,
  SCOPE_KINDS,
  type ScopeKind,
} from '../../../lambdas/reconcile/categories';
import type { Plan } from '../../../lambdas/reconcile/plan';
import { PlanFileError, parsePlan, serializePlan } from '../../../lambdas/reconcile/plan-file';
import { exampleRepair, scopePlan } from './plan-fixture';

/** A `kind` plan whose one entry is in `category` and carries a repair sent as `action`. */
const planWith = (kind: ScopeKind, action: RepairAction, category: Category): Plan =>
  scopePlan(kind, 1, {
    counts: { [category]: 1 } as Plan['counts'],
    deletes: {
      count: category === 'delete' ? 1 : 0,
      gate: 25,
      scopeSize: 1,
      held: false,
      heldBecause: [],
    },
    platformReads: 1,
    entries: [{ entity: 'an-entity', category, line: 2, repair: exampleRepair(action) }],
  });

/** Every (kind, category, action) the table names. */
const NAMED = SCOPE_KINDS.flatMap((kind) =>
  CATEGORIES.flatMap((category) => {
    const action = repairActionOf(category, kind);
    return action === undefined ? [] : [{ kind, category, action }];
  }),
);

/** Every (kind, category) whose entries may not carry `action`, beside those of another kind. */
const misplacements = (action: RepairAction) =>
  SCOPE_KINDS.flatMap((kind) =>
    CATEGORIES.filter(
      (category) =>
        repairActionOf(category, kind) !== undefined && repairActionOf(category, kind) !== action,
    ).map((category) => ({ kind, category })),
  );

describe('the repairs of the category table', () => {
  it('orders every action once, each kind’s other repairs before any removal', () => {
    // Prepare
    const all = new Set(NAMED.map(({ action }) => action));

    // Assess
    expect(REPAIR_ORDER).toHaveLength(all.size);
    expect(new Set(REPAIR_ORDER)).toEqual(all);
    const firstRemoval = REPAIR_ORDER.findIndex(isDeleteRepair);
    expect(REPAIR_ORDER.slice(firstRemoval).every(isDeleteRepair)).toBe(true);
    // The records' removals before the users' (a record may name a user).
    expect(REPAIR_ORDER.filter(isDeleteRepair)).toEqual(
      [...SCOPE_KINDS].reverse().flatMap((kind) => repairActionsOf(kind).filter(isDeleteRepair)),
    );
  });

  it('names no action both as a removal and as another repair, which the order could not place', () => {
    // Prepare
    const removing = new Set(NAMED.filter((n) => isRemoval(n.category)));
    const others = NAMED.filter((n) => !removing.has(n)).map((n) => n.action);

    // Assess
    expect([...removing].filter((n) => others.includes(n.action))).toEqual([]);
  });

  it('sends a kind’s other repairs before those of the kinds after it (a record may name a user)', () => {
    // Prepare
    const position = (action: RepairAction) => REPAIR_ORDER.indexOf(action);
    const puts = SCOPE_KINDS.map((kind) => repairActionsOf(kind).filter((a) => !isDeleteRepair(a)));

    // Assess
    puts.forEach((earlier, i) => {
      for (const later of puts.slice(i + 1).flat()) {
        for (const action of earlier) expect(position(action)).toBeLessThan(position(later));
      }
    });
  });

  it.each(NAMED)('the plan file takes $action in a $kind plan’s $category entry', (named) => {
    // Act
    const read = parsePlan(serializePlan(planWith(named.kind, named.action, named.category)));

    // Assess
    expect(read.entries[0]?.repair?.action).toBe(named.action);
  });

  it.each(NAMED)('the plan file refuses $action anywhere else', ({ action }) => {
    // Prepare
    const elsewhere = misplacements(action);

    // Act
    const refusals = elsewhere.map(
      ({ kind, category }) =>
        () =>
          parsePlan(serializePlan(planWith(kind, action, category))),
    );

    // Assess
    expect(elsewhere.length).toBeGreaterThan(0);
    elsewhere.forEach(({ kind, category }, i) => {
      expect(refusals[i]).toThrow(PlanFileError);
      expect(refusals[i]).toThrow(
        `repair.action: ${action} in a ${category} entry of a ${kind} plan`,
      );
    });
  });
});
