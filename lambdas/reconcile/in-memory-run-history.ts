import type { RunRecord, ScopeState } from './run-history';
import { RunHistoryStore } from './run-history-store';

/** The run history in memory: the local run and tests. */
export class InMemoryRunHistory extends RunHistoryStore {
  readonly #scopes = new Map<string, ScopeState>();
  readonly #runs = new Map<string, RunRecord>();

  async scope(name: string): Promise<ScopeState> {
    return structuredClone(this.#scopes.get(name) ?? {});
  }

  async run(scope: string, runId: string): Promise<RunRecord | undefined> {
    return structuredClone(this.#runs.get(`${scope}#${runId}`));
  }

  protected async changeScope(
    name: string,
    change: (state: ScopeState) => ScopeState | undefined,
  ): Promise<void> {
    const next = change(this.#scopes.get(name) ?? {});
    if (next !== undefined) this.#scopes.set(name, structuredClone(next));
  }

  protected async changeRun(
    scope: string,
    runId: string,
    change: (previous: RunRecord | undefined) => RunRecord,
  ): Promise<void> {
    const key = `${scope}#${runId}`;
    this.#runs.set(key, structuredClone(change(this.#runs.get(key))));
  }
}
