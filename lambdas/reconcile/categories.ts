/**
 * The plan's categories and what a change of each is repaired with: one table, which everything
 * outside the planner reads. A new category is a row here and the code that puts entries in it
 * (plan-records.ts or plan-users.ts, with any new reason in reconcile-codes.ts); another repair
 * action for a category is its row's `repairs` (below, what follows it and the tests that hold
 * each).
 */
import * as z from 'zod/mini';
import type { ActionName } from '../actions';
import type { EntryReason } from './reconcile-codes';

/** The kinds of scope, as a manifest and a plan file name them. */
export const SCOPE_KINDS = ['users', 'records'] as const;
export type ScopeKind = (typeof SCOPE_KINDS)[number];

/** A scope's kind as a manifest or a plan file names it. */
export const scopeKind = z.enum(
  SCOPE_KINDS,
  `must be ${SCOPE_KINDS.map((kind) => `"${kind}"`).join(' or ')}`,
);

/** What decides a category's place outside the planner. */
interface CategoryRow {
  /** The summary and the report name its entities one by one (else they only count them). */
  readonly listed: boolean;
  /** What `reconcile plan --help` says after its name. @default nothing */
  readonly hint?: string;
  /**
   * Its entries change the platform: the action each scope kind's entry carries its repair as
   * (its message is the action's, checked when the plan file is read). Only these rows carry a
   * repair, and apply sends only those. @default none: the entry changes nothing
   */
  readonly repairs?: { readonly [K in ScopeKind]?: ActionName };
  /**
   * Its repairs remove what they name (`isRemoval`): the delete gate counts and holds them for a
   * person (delete-gate.ts; the plan file checks its header by them), apply and the stack's run
   * leave them out while held (apply-check.ts, run-function.ts), a plan of only these is held
   * whole (plan-record.ts), and apply sends them after every other repair. @default false
   */
  readonly removes?: boolean;
}

/**
 * One row per category, in the order the plan sorts its entries and every reader lists them;
 * each row's comment says what it means. Derived from it:
 * - `Category`, `CATEGORIES`: the plan's counts, the plan file's category enum and counts;
 * - `CHANGES` (the rows with `repairs`): `hasChanges`, the summary's last line, the drift metric
 *   (run-function.ts), the entries that may carry a repair (plan-file.ts);
 * - `isListed`: the entities the summary and the report name (plan-summary.ts, run-report.ts);
 * - the `reconcile plan` help's list of categories (`categoryHelp`, ops/main.ts);
 * - `RepairAction`, `REPAIR_ORDER`, `isDeleteRepair`, `repairActionsOf`: the plan file's action
 *   enum and its check that an entry's repair is its row's for its plan's kind (plan-file.ts),
 *   apply's order (ops/reconcile/reconcile-apply.ts; the stack's run writes its repair file in
 *   the plan's order, which puts every removal last), and the stack's repair queues, their grants
 *   and the run's queue URLs (lib/contact-center-sync-stack.ts; a scope whose repair actions are
 *   disabled in the config fails the synth);
 * - the action each entry's repair is sent as (plan-records.ts, plan-users.ts read their row's).
 * Held to it: test/unit/reconcile/plan-categories.test.ts (plan file, summary, report, help,
 * CHANGES), test/unit/reconcile/repair-actions.test.ts (the action check and the order),
 * test/infra/reconciliation.test.ts (queues and grants). None of them changes for a new row.
 */
export const CATEGORY_TABLE = {
  /** The export holds it and the platform does not: the repair adds it. */
  create: {
    listed: true,
    repairs: { users: 'add-user', records: 'add-or-update-campaign-record' },
  },
  /** The platform's data differs from its row's (`fields`): the repair sends the row's. */
  update: {
    listed: true,
    hint: '(with the fields)',
    repairs: { records: 'add-or-update-campaign-record' },
  },
  /**
   * The platform holds it and the export does not want it (no row, or a leaver's): the repair
   * removes it, unless the delete gate holds the whole delete set for a person.
   */
  delete: {
    listed: true,
    repairs: { users: 'delete-user', records: 'delete-campaign-record' },
    removes: true,
  },
  /** Not this integration's (the ledger never saw it made), and the scope leaves such alone. */
  unmanaged: { listed: true },
  /** Export and platform disagree in a way no repair may settle (a clientId held twice, ...). */
  conflict: { listed: true },
  /** A change the plan does not send; its reason says why (a newer live event, ...). */
  skipped: { listed: true, hint: '(with its reason)' },
  /** The platform already holds what the export says. */
  'in-sync': { listed: false },
} as const satisfies Record<string, CategoryRow>;

export type Category = keyof typeof CATEGORY_TABLE;

/** A row as its readers see it: its repairs typed by the table's own actions. */
interface TableRow extends CategoryRow {
  readonly repairs?: { readonly [K in ScopeKind]?: RepairAction };
}

const rowOf = (category: Category): TableRow => CATEGORY_TABLE[category];

/** A category as the summary and the help print it (`in sync`). */
export const categoryLabel = (category: Category): string => category.replaceAll('-', ' ');

/** A category as `reconcile plan --help` lists it: its label and its row's hint. */
export const categoryHelp = (category: Category): string => {
  const hint = rowOf(category).hint;
  return hint === undefined ? categoryLabel(category) : `${categoryLabel(category)} ${hint}`;
};

/** Every category, in the table's order. */
export const CATEGORIES = Object.keys(CATEGORY_TABLE) as readonly Category[];

/** The categories that change the platform. */
export const CHANGES: readonly Category[] = CATEGORIES.filter(
  (c) => rowOf(c).repairs !== undefined,
);

/** An entry of this category removes what it names (see `removes`). */
export const isRemoval = (category: Category): boolean => rowOf(category).removes === true;

/** The summary and the report name each entity of this category (in sync ones are counted). */
export const isListed = (category: Category): boolean => rowOf(category).listed;

type RepairsOf<C> = C extends { readonly repairs: infer R } ? R[keyof R] : never;

/** Every action a repair is sent as. */
export type RepairAction = RepairsOf<(typeof CATEGORY_TABLE)[Category]>;

/** The repair action of an entry in `category` of a `kind` plan; undefined: it carries none. */
export const repairActionOf = (category: Category, kind: ScopeKind): RepairAction | undefined =>
  rowOf(category).repairs?.[kind];

const actionsOf = (kind: ScopeKind, removing: boolean): RepairAction[] => [
  ...new Set(
    CATEGORIES.filter((c) => isRemoval(c) === removing).flatMap((c) => {
      const action = repairActionOf(c, kind);
      return action === undefined ? [] : [action];
    }),
  ),
];

/** The actions a `kind` scope's repairs are sent as: the stack gives the run their queues. */
export const repairActionsOf = (kind: ScopeKind): readonly RepairAction[] => [
  ...actionsOf(kind, false),
  ...actionsOf(kind, true),
];

/**
 * One entity of a plan: its category and, for a change, its repair. A change is skipped instead
 * (`skipped`, NEWER_EVENT, its repair and fields dropped) when the ledger holds a live event of
 * the entity newer than the export: `buildPlan` asks this of every entry of a changing row
 * (plan.ts `skipNewer`; test/unit/reconcile/plan-ledger.test.ts and plan-coverage.test.ts, "a
 * live event newer than the export", for records and users).
 */
export interface PlanEntry {
  /** `user:<loginUserId>` or `record:<campaign>:<clientId>`. */
  readonly entity: string;
  readonly category: Category;
  /**
   * Why, where the category alone does not say (reconcile-codes.ts): every unmanaged, conflict
   * and skipped entry, and a delete of a record agents worked, of a user whose scope is in
   * doubt, or of what is not ours.
   */
  readonly reason?: EntryReason;
  /** OWNER_AMBIGUOUS: every scope that covers or may cover the user, this one first. */
  readonly scopes?: readonly string[];
  /** An update: the fields that differ (`data.<key>`). */
  readonly fields?: readonly string[];
  /** The export line the entity came from. */
  readonly line?: number;
  /** A change: the message that repairs it, stamped `occurredAt = exportedAt`. */
  readonly repair?: { readonly action: RepairAction; readonly message: Record<string, unknown> };
}

/**
 * The order an apply sends a repair set in, each action's file whole: every kind's other repairs
 * before any removal (a user a record names is there first; removals go last, past the brake,
 * the records' before the users').
 */
export const REPAIR_ORDER: readonly RepairAction[] = [
  ...new Set([
    ...SCOPE_KINDS.flatMap((kind) => actionsOf(kind, false)),
    ...[...SCOPE_KINDS].reverse().flatMap((kind) => actionsOf(kind, true)),
  ]),
];

/** Whether a repair action removes what it names (a removing row's, and only those). */
export const isDeleteRepair = (action: RepairAction): boolean =>
  CATEGORIES.some((c) => isRemoval(c) && Object.values(rowOf(c).repairs ?? {}).includes(action));
