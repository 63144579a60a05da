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

/** The run history in memory: the local run and tests. */
export class InMemoryRunHistory implements RunHistory {
  readonly #scopes = new Map<string, ScopeState>();
  readonly #runs = new Map<string, RunRecord>();

  async scope(name: string): Promise<ScopeState> {
    return structuredClone(this.#scopes.get(name) ?? {});
  }

  /** The same transitions as the DynamoDB store; `undefined` leaves the state as it is. */
  #change(name: string, change: (state: ScopeState) => ScopeState | undefined): void {
    const next = change(this.#scopes.get(name) ?? {});
    if (next !== undefined) this.#scopes.set(name, structuredClone(next));
  }

  async notePlanned(name: string, snapshot: SnapshotMark): Promise<void> {
    this.#change(name, (state) => afterPlanned(state, snapshot));
  }

  async noteApplied(name: string, snapshot: SnapshotMark, by: { at: string; approvedBy: string }) {
    this.#change(name, (state) => afterApplied(state, snapshot, by));
  }

  async noteSuccess(name: string, at: string): Promise<void> {
    this.#change(name, (state) => afterSuccess(state, at));
  }

  async record(run: RunRecord): Promise<void> {
    const key = `${run.scope}#${run.runId}`;
    this.#runs.set(key, structuredClone(afterRecorded(this.#runs.get(key), run)));
  }

  async run(scope: string, runId: string): Promise<RunRecord | undefined> {
    return structuredClone(this.#runs.get(`${scope}#${runId}`));
  }
}
