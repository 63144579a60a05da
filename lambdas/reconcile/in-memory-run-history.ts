import {
  isNewerSnapshot,
  type RunHistory,
  type RunRecord,
  type ScopeState,
  type SnapshotMark,
} from './run-history';

/** The run history in memory: the local run and tests. */
export class InMemoryRunHistory implements RunHistory {
  readonly #scopes = new Map<string, ScopeState>();
  readonly runs: RunRecord[] = [];

  async scope(name: string): Promise<ScopeState> {
    return structuredClone(this.#scopes.get(name) ?? {});
  }

  async notePlanned(name: string, snapshot: SnapshotMark): Promise<void> {
    const state = this.#scopes.get(name) ?? {};
    if (isNewerSnapshot(snapshot, state.newest))
      this.#scopes.set(name, { ...state, newest: snapshot });
  }

  async noteApplied(name: string, snapshot: SnapshotMark, by: { at: string; approvedBy: string }) {
    const state = this.#scopes.get(name) ?? {};
    this.#scopes.set(name, {
      ...state,
      applied: { ...snapshot, appliedAt: by.at, approvedBy: by.approvedBy },
      lastSuccessAt: by.at,
    });
  }

  async noteSuccess(name: string, at: string): Promise<void> {
    this.#scopes.set(name, { ...(this.#scopes.get(name) ?? {}), lastSuccessAt: at });
  }

  async record(run: RunRecord): Promise<void> {
    this.runs.push(structuredClone(run));
  }
}
