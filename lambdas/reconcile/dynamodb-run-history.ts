/**
 * The run history as items of the deployment's table (beside the ledger's, the breakers' and the
 * brakes'): `reconcile#scope#<scope>` holds the scope's state, `reconcile#run#<scope>#<runId>`
 * one run. Each is one JSON attribute; the scope item is written only when the snapshot it
 * notes is newer, by a condition on its `newestAt`, so two runs of one scope cannot go back.
 */
import { expiresAfter, LedgerTable, type LedgerTableOptions } from '../core/aws/ledger-table';
import {
  afterApplied,
  afterPlanned,
  afterSuccess,
  type RunHistory,
  type RunRecord,
  type ScopeState,
  type SnapshotMark,
} from './run-history';

export const RUN_HISTORY_KEY_PREFIX = 'reconcile#';
const RUN_DAYS = 400;
const scopeKey = (name: string) => `${RUN_HISTORY_KEY_PREFIX}scope#${name}`;

export class DynamoDbRunHistory implements RunHistory {
  readonly #table: LedgerTable;
  readonly #now: () => number;

  constructor(options: LedgerTableOptions & { readonly now?: () => number }) {
    this.#table = new LedgerTable(options);
    this.#now = options.now ?? Date.now;
  }

  async scope(name: string): Promise<ScopeState> {
    const item = await this.#table.get(scopeKey(name), true);
    const text = item?.doc?.S;
    return text === undefined ? {} : (JSON.parse(text) as ScopeState);
  }

  /** Read, change, write back on the condition that nobody wrote in between (else read again). */
  async #change(name: string, change: (state: ScopeState) => ScopeState | undefined) {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const item = await this.#table.get(scopeKey(name), true);
      const text = item?.doc?.S;
      const state = text === undefined ? {} : (JSON.parse(text) as ScopeState);
      const next = change(state);
      if (next === undefined) return;
      const revision = Number(item?.revision?.N ?? 0);
      const write = await this.#table.put(
        {
          pk: { S: scopeKey(name) },
          doc: { S: JSON.stringify(next) },
          revision: { N: String(revision + 1) },
        },
        text === undefined
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : {
              ConditionExpression: 'revision = :revision',
              ExpressionAttributeValues: { ':revision': { N: String(revision) } },
            },
      );
      if (write.done) return;
    }
    throw new Error(`the run history of scope ${name} kept changing under this write`);
  }

  notePlanned(name: string, snapshot: SnapshotMark): Promise<void> {
    return this.#change(name, (state) => afterPlanned(state, snapshot));
  }

  noteApplied(name: string, snapshot: SnapshotMark, by: { at: string; approvedBy: string }) {
    return this.#change(name, (state) => afterApplied(state, snapshot, by));
  }

  noteSuccess(name: string, at: string): Promise<void> {
    return this.#change(name, (state) => afterSuccess(state, at));
  }

  async record(run: RunRecord): Promise<void> {
    await this.#table.put(
      {
        pk: { S: `${RUN_HISTORY_KEY_PREFIX}run#${run.scope}#${run.runId}` },
        doc: { S: JSON.stringify(run) },
        expiresAt: expiresAfter(this.#now(), RUN_DAYS * 86_400),
      },
      {},
    );
  }
}
