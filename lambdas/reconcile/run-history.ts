/**
 * Where reconciliation remembers its runs: per scope, the newest snapshot planned and the last
 * one applied (the previous snapshot of the next run, the superseded-plan check, the shrink
 * guard), and one item per run with its counts, who approved it and where its plan is.
 * DynamoDB (the deployment's table) in the stack, memory in the local run and tests; both apply
 * the scope's transitions below, so they cannot drift apart.
 */

import type { RefusalCode } from './reconcile-codes';

export interface SnapshotMark {
  readonly exportedAt: string;
  readonly rowCount: number;
  readonly sha256: string;
  /** Where its plan is (a file path or an s3:// URI): the previous snapshot's users are read from it. */
  readonly planLocation?: string;
}

export interface ScopeState {
  /** The newest snapshot any plan of the scope was made from. */
  readonly newest?: SnapshotMark;
  /** The last snapshot whose plan was applied. */
  readonly applied?: SnapshotMark & { readonly appliedAt: string; readonly approvedBy: string };
  /** When a run last ended well (planned with nothing held, or applied). */
  readonly lastSuccessAt?: string;
}

/**
 * `held`: the plan waits for a person, nothing of it sent; `applied-deletes-held`: the rest of
 * the plan was sent, its deletes wait (`reconcile apply` exits 3).
 */
export type RunStatus =
  | 'refused'
  | 'no-changes'
  | 'planned'
  | 'held'
  | 'applied'
  | 'applied-deletes-held';

export interface RunRecord {
  readonly runId: string;
  readonly scope: string;
  readonly status: RunStatus;
  readonly at: string;
  readonly counts?: Readonly<Record<string, number>>;
  readonly deletesHeld?: number;
  readonly approvedBy?: string;
  readonly planLocation?: string;
  /** SHA-256 of the plan file as written: `reconcile apply` refuses a file that differs. */
  readonly planSha256?: string;
  readonly reportLocation?: string;
  readonly refusal?: { readonly code: RefusalCode; readonly message: string };
  /** What the plan could not use (the previous snapshot's plan gone or damaged, say). */
  readonly warnings?: readonly string[];
}

export interface RunHistory {
  scope(name: string): Promise<ScopeState>;
  /** Notes a plan's snapshot as the newest of its scope when it is newer than the one noted. */
  notePlanned(name: string, snapshot: SnapshotMark): Promise<void>;
  noteApplied(
    name: string,
    snapshot: SnapshotMark,
    by: { readonly at: string; readonly approvedBy: string },
  ): Promise<void>;
  noteSuccess(name: string, at: string): Promise<void>;
  /**
   * Notes a run; a record of the same run (its plan, then its apply) is merged into: fields
   * `run` leaves out are kept (`afterRecorded`).
   */
  record(run: RunRecord): Promise<void>;
  /** The record of one run, if any. */
  run(scope: string, runId: string): Promise<RunRecord | undefined>;
}

/** `a` was exported after `b` (ties broken by the hash, so two different files never tie). */
export const isNewerSnapshot = (a: SnapshotMark, b: SnapshotMark | undefined): boolean =>
  b === undefined ||
  a.exportedAt > b.exportedAt ||
  (a.exportedAt === b.exportedAt && a.sha256 > b.sha256);

/** The later of two ISO times (a success noted late must not move the last one back). */
const later = (a: string | undefined, b: string): string => (a !== undefined && a > b ? a : b);

/** A plan of `snapshot` was made: it is the scope's newest when newer; undefined: no change. */
export const afterPlanned = (state: ScopeState, snapshot: SnapshotMark): ScopeState | undefined =>
  isNewerSnapshot(snapshot, state.newest) ? { ...state, newest: snapshot } : undefined;

/**
 * The plan of `snapshot` was applied. `applied` moves only forward: two applies that finish out
 * of order must not leave the older snapshot as the scope's last applied one (the superseded
 * check and the previous snapshot of the next plan read it). Either way a run succeeded.
 */
export const afterApplied = (
  state: ScopeState,
  snapshot: SnapshotMark,
  by: { readonly at: string; readonly approvedBy: string },
): ScopeState => ({
  ...state,
  ...(isNewerSnapshot(snapshot, state.applied)
    ? { applied: { ...snapshot, appliedAt: by.at, approvedBy: by.approvedBy } }
    : {}),
  lastSuccessAt: later(state.lastSuccessAt, by.at),
});

/** A run ended well at `at`. */
export const afterSuccess = (state: ScopeState, at: string): ScopeState => ({
  ...state,
  lastSuccessAt: later(state.lastSuccessAt, at),
});

/**
 * A run noted again (the apply of a plan noted when it was made): what the new record says wins,
 * and what it leaves out (the plan's warnings, its report) is kept.
 */
export const afterRecorded = (previous: RunRecord | undefined, run: RunRecord): RunRecord => ({
  ...previous,
  ...run,
});
