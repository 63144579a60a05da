import * as z from 'zod/mini';
import type { ActionName } from '../actions';

/**
 * The one list of what a repair is sent as: for each scope kind, the action that creates or
 * updates and the one that deletes. Everything else derives from it, so a new repair action is
 * one edit here (and the plan entries that carry it): the plan file's action enum and its check
 * that only a delete entry carries a delete (plan-file.ts), `reconcile apply`'s order
 * (`REPAIR_ORDER`, ops/reconcile/reconcile-apply.ts; the stack's run writes its repair file in
 * the plan's order, which puts every create and update before any delete), and the stack's repair
 * queues, their grants and the run function's queue URLs (lib/contact-center-sync-stack.ts; a
 * scope whose repair actions are disabled fails the synth). Held to it: the plan file and the
 * order by test/unit/reconcile/repair-actions.test.ts, the grants by
 * test/infra/reconciliation.test.ts.
 */
export const REPAIR_ACTIONS_BY_KIND = {
  users: { put: 'add-user', delete: 'delete-user' },
  records: { put: 'add-or-update-campaign-record', delete: 'delete-campaign-record' },
} as const satisfies Readonly<
  Record<string, { readonly put: ActionName; readonly delete: ActionName }>
>;

export type ScopeKind = keyof typeof REPAIR_ACTIONS_BY_KIND;
export const SCOPE_KINDS = Object.keys(REPAIR_ACTIONS_BY_KIND) as ScopeKind[];

/** A scope's kind as a manifest or a plan file names it. */
export const scopeKind = z.enum(
  SCOPE_KINDS,
  `must be ${SCOPE_KINDS.map((kind) => `"${kind}"`).join(' or ')}`,
);

export type RepairAction =
  (typeof REPAIR_ACTIONS_BY_KIND)[ScopeKind][keyof (typeof REPAIR_ACTIONS_BY_KIND)[ScopeKind]];

/**
 * The order an apply sends a repair set in, each action's file whole: every kind's creates and
 * updates before any delete (a user a record names is there first; deletes go last, past the brake).
 */
export const REPAIR_ORDER: readonly RepairAction[] = [
  ...SCOPE_KINDS.map((kind) => REPAIR_ACTIONS_BY_KIND[kind].put),
  ...SCOPE_KINDS.map((kind) => REPAIR_ACTIONS_BY_KIND[kind].delete).reverse(),
];

/** Whether a repair action removes what it names (a delete entry's, and only those). */
export const isDeleteRepair = (action: RepairAction): boolean =>
  SCOPE_KINDS.some((kind) => REPAIR_ACTIONS_BY_KIND[kind].delete === action);
