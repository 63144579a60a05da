import {
  afterApplied,
  afterPlanned,
  afterRecorded,
  afterSuccess,
  type RunHistory,
  type RunRecord,
  type ScopeState,
  type SnapshotMark,
} from './run-history';

/**
 * A run history over two read-change-write steps, one for a scope's state and one for a run, so
 * that every store (DynamoDB, memory) applies the same transitions (run-history.ts); a change that
 * answers `undefined` leaves the state as it is.
 */
export abstract class RunHistoryStore implements RunHistory {
  abstract scope(name: string): Promise<ScopeState>;
  abstract run(scope: string, runId: string): Promise<RunRecord | undefined>;
  protected abstract changeScope(
    name: string,
    change: (state: ScopeState) => ScopeState | undefined,
  ): Promise<void>;
  protected abstract changeRun(
    scope: string,
    runId: string,
    change: (previous: RunRecord | undefined) => RunRecord,
  ): Promise<void>;

  notePlanned(name: string, snapshot: SnapshotMark): Promise<void> {
    return this.changeScope(name, (state) => afterPlanned(state, snapshot));
  }

  noteApplied(name: string, snapshot: SnapshotMark, by: { at: string; approvedBy: string }) {
    return this.changeScope(name, (state) => afterApplied(state, snapshot, by));
  }

  noteSuccess(name: string, at: string): Promise<void> {
    return this.changeScope(name, (state) => afterSuccess(state, at));
  }

  record(run: RunRecord): Promise<void> {
    return this.changeRun(run.scope, run.runId, (previous) => afterRecorded(previous, run));
  }
}
