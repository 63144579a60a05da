/**
 * Every reader of the repair table (repair-actions.ts) follows it: the plan file takes each
 * repair action in the entries its role allows, and an apply's order sends every kind's puts
 * before any delete. A repair action added to the table is held here without a line of this file
 * changing; test/infra/reconciliation.test.ts holds the stack's queues and grants to it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Category, Plan } from '../../../lambdas/reconcile/plan';
import { PlanFileError, parsePlan, serializePlan } from '../../../lambdas/reconcile/plan-file';
import {
  isDeleteRepair,
  REPAIR_ACTIONS_BY_KIND,
  REPAIR_ORDER,
  type RepairAction,
  SCOPE_KINDS,
} from '../../../lambdas/reconcile/repair-actions';
import { REPO_ROOT } from '../../support/repo-paths';
import { EXPORTED_AT, usersPlan } from './plan-fixture';

/** The example day's first message of `action` (examples/), at the export's time. */
const exampleMessage = (action: RepairAction): Record<string, unknown> => {
  const folder = join(REPO_ROOT, 'examples');
  const events = readdirSync(folder)
    .filter((file) => /^\d\d-.*\.json$/.test(file))
    .flatMap((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')) as unknown[]);
  const found = events.find(
    (e): e is { detail: Record<string, unknown> } =>
      (e as { 'detail-type'?: unknown })['detail-type'] === action,
  );
  if (found === undefined) throw new Error(`the example day sends no ${action}`);
  return { ...found.detail, occurredAt: EXPORTED_AT };
};

/** A plan whose one entry is in `category` and carries a repair sent as `action`. */
const planWith = (action: RepairAction, category: Category): Plan =>
  usersPlan(1, {
    counts: { [category]: 1 } as Plan['counts'],
    deletes: {
      count: category === 'delete' ? 1 : 0,
      gate: 25,
      scopeSize: 1,
      held: false,
      heldBecause: [],
    },
    platformReads: 1,
    entries: [
      {
        entity: 'user:a@example.com',
        category,
        line: 2,
        repair: { action, message: exampleMessage(action) },
      },
    ],
  });

describe('the repair table', () => {
  it('orders every action once, every kind’s puts before any delete', () => {
    // Prepare
    const all = SCOPE_KINDS.flatMap((kind) => Object.values(REPAIR_ACTIONS_BY_KIND[kind]));

    // Assess
    expect([...REPAIR_ORDER].sort()).toEqual([...all].sort());
    const firstDelete = REPAIR_ORDER.findIndex(isDeleteRepair);
    expect(REPAIR_ORDER.slice(firstDelete).every(isDeleteRepair)).toBe(true);
    expect(REPAIR_ORDER.filter(isDeleteRepair)).toEqual(
      SCOPE_KINDS.map((kind) => REPAIR_ACTIONS_BY_KIND[kind].delete).reverse(),
    );
  });

  it.each(REPAIR_ORDER)('the plan file takes %s in the entries its role allows', (action) => {
    // Prepare
    const allowed: Category = isDeleteRepair(action) ? 'delete' : 'create';
    const refused: Category = isDeleteRepair(action) ? 'create' : 'delete';

    // Act
    const read = parsePlan(serializePlan(planWith(action, allowed)));
    const misplaced = () => parsePlan(serializePlan(planWith(action, refused)));

    // Assess
    expect(read.entries[0]?.repair?.action).toBe(action);
    expect(misplaced).toThrow(PlanFileError);
    expect(misplaced).toThrow(`repair.action: ${action} in a ${refused} entry`);
  });
});
