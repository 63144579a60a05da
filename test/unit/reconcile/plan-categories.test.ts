/**
 * Every reader of a plan follows its one category table (categories.ts): each category travels
 * through the plan file, has its line in the summary, names its entities in the summary and the
 * report only when listed, and changes the platform (carries a repair, counts as a change) only
 * when its row says so. A category added to the table is held here without a line of this file
 * changing.
 */
import { describe, expect, it } from 'vitest';
import {
  CATEGORIES,
  CATEGORY_TABLE,
  type Category,
  CHANGES,
  type PlanEntry,
  repairActionOf,
  SCOPE_KINDS,
} from '../../../lambdas/reconcile/categories';
import { hasChanges, type Plan } from '../../../lambdas/reconcile/plan';
import { PlanFileError, parsePlan, serializePlan } from '../../../lambdas/reconcile/plan-file';
import { summarizePlan } from '../../../lambdas/reconcile/plan-summary';
import { reportLines } from '../../../lambdas/reconcile/run-report';
import { runOpsCaptured } from '../../support/ops-run';
import { ADD_USER_REPAIR, exampleRepair, scopePlan } from './plan-fixture';

const ENTITY = 'user:a@example.com';

/** The row names a repair: its entries change the platform. */
const changes = (category: Category): boolean => 'repairs' in CATEGORY_TABLE[category];
const listed = (category: Category): boolean => CATEGORY_TABLE[category].listed;

/** The first scope kind whose entries of `category` carry a repair (users when none does). */
const kindOf = (category: Category) =>
  SCOPE_KINDS.find((kind) => repairActionOf(category, kind) !== undefined) ?? 'users';

/** The repair an entry of `category` carries in its kind's plan; an add-user's when none. */
const repairOf = (category: Category): NonNullable<PlanEntry['repair']> => {
  const action = repairActionOf(category, kindOf(category));
  return action === undefined ? ADD_USER_REPAIR : exampleRepair(action);
};

/** A plan whose one entry is in `category`, with a repair when `withRepair`. */
const planOf = (category: Category, withRepair: boolean): Plan => {
  const counts = Object.fromEntries(CATEGORIES.map((c) => [c, c === category ? 1 : 0]));
  const deletes = category === 'delete' ? 1 : 0;
  return scopePlan(kindOf(category), 1, {
    counts: counts as Record<Category, number>,
    deletes: { count: deletes, gate: 25, scopeSize: 1, held: false, heldBecause: [] },
    platformReads: 1,
    entries: [
      { entity: ENTITY, category, line: 2, ...(withRepair ? { repair: repairOf(category) } : {}) },
    ],
  });
};

const label = (category: Category): string => category.replaceAll('-', ' ');

describe('the plan file follows the category table', () => {
  it.each(CATEGORIES)('reads back a plan whose entry is %s', (category) => {
    // Prepare
    const plan = planOf(category, changes(category));

    // Act
    const read = parsePlan(serializePlan(plan));

    // Assess
    expect(read).toEqual(plan);
    expect(read.counts[category]).toBe(1);
  });

  it.each(CATEGORIES.filter((c) => !changes(c)))('refuses a repair in a %s entry', (category) => {
    // Prepare
    const text = serializePlan(planOf(category, true));

    // Act
    const read = () => parsePlan(text);

    // Assess
    expect(read).toThrow(PlanFileError);
    expect(read).toThrow(`a ${category} entry carries none`);
  });
});

describe('the summary and the report follow the category table', () => {
  it('give each category its count, in the table order', () => {
    // Prepare
    const plan = planOf('create', true);

    // Act
    const lines = summarizePlan(plan);

    // Assess
    const counted = CATEGORIES.map((c) =>
      lines.findIndex((line) => new RegExp(`^ {2}${label(c)} +[01]$`).test(line)),
    );
    expect(counted.every((index) => index > 0)).toBe(true);
    expect(counted).toEqual([...counted].sort((a, b) => a - b));
  });

  it.each(CATEGORIES)('names a %s entity only when the table lists its category', (category) => {
    // Prepare
    const plan = planOf(category, changes(category));

    // Act
    const summary = summarizePlan(plan);
    const report = reportLines(plan).slice(1);

    // Assess
    expect(summary.some((line) => line.trim().startsWith(ENTITY))).toBe(listed(category));
    expect(report.some((line) => line.includes(`"entity":"${ENTITY}"`))).toBe(listed(category));
  });
});

describe('the command line follows the category table', () => {
  it('`reconcile plan --help` names every category', async () => {
    // Act
    const help = await runOpsCaptured(['reconcile', 'plan', '--help']);

    // Assess
    expect(help.code).toBe(0);
    const named = help.stdout.replaceAll(/\s+/g, ' ');
    expect(CATEGORIES.filter((c) => !named.includes(label(c)))).toEqual([]);
  });
});

describe('what changes the platform follows the category table', () => {
  it('CHANGES holds exactly the rows that name a repair, in table order', () => {
    // Act
    const changing = CATEGORIES.filter(changes);

    // Assess
    expect(CHANGES).toEqual(changing);
  });

  it.each(CATEGORIES)('a plan whose one entry is %s has changes only if its row says so', (c) => {
    // Prepare
    const plan = planOf(c, changes(c));

    // Act
    const summary = summarizePlan(plan);

    // Assess
    expect(hasChanges(plan)).toBe(changes(c));
    expect(summary.at(-1)?.startsWith('Plan: ')).toBe(changes(c));
    if (changes(c)) expect(summary.at(-1)).toContain(`1 to ${c}`);
  });
});
