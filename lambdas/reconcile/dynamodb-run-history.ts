/**
 * The run history as items of the deployment's table (beside the ledger's, the breakers' and the
 * brakes'): `reconcile#scope#<scope>` holds the scope's state, `reconcile#run#<scope>#<runId>`
 * one run. Each is one JSON attribute (its shape versioned and parsed: run-history-items.ts), changed by read, change and a write conditional on its
 * revision; the scope item is written only when the snapshot it notes is newer, so two runs of
 * one scope cannot go back, and a run noted twice (plan, apply) keeps what each said.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { expiresAfter, LedgerTable, type LedgerTableOptions } from '../core/aws/ledger-table';
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
import { parseRunRecord, parseScopeState, storedItem } from './run-history-items';

export const RUN_HISTORY_KEY_PREFIX = 'reconcile#';
const RUN_DAYS = 400;
const scopeKey = (name: string) => `${RUN_HISTORY_KEY_PREFIX}scope#${name}`;
const runKey = (scope: string, runId: string) => `${RUN_HISTORY_KEY_PREFIX}run#${scope}#${runId}`;

export class DynamoDbRunHistory implements RunHistory {
  readonly #table: LedgerTable;
  readonly #now: () => number;

  constructor(options: LedgerTableOptions & { readonly now?: () => number }) {
    this.#table = new LedgerTable(options);
    this.#now = options.now ?? Date.now;
  }

  async scope(name: string): Promise<ScopeState> {
    const key = scopeKey(name);
    const text = (await this.#table.get(key, true))?.doc?.S;
    return text === undefined ? {} : parseScopeState(text, key);
  }

  /** Read, change, write back on the condition that nobody wrote in between (else read again). */
  #change(name: string, change: (state: ScopeState) => ScopeState | undefined) {
    return this.#update(scopeKey(name), parseScopeState, (state) => change(state ?? {}), {});
  }

  async #update<T extends ScopeState | RunRecord>(
    key: string,
    parse: (text: string, key: string) => T,
    change: (value: T | undefined) => T | undefined,
    attributes: Readonly<Record<string, AttributeValue>>,
  ): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const item = await this.#table.get(key, true);
      const text = item?.doc?.S;
      const next = change(text === undefined ? undefined : parse(text, key));
      if (next === undefined) return;
      const revision = Number(item?.revision?.N ?? 0);
      const write = await this.#table.put(
        {
          pk: { S: key },
          doc: { S: storedItem(next) },
          revision: { N: String(revision + 1) },
          ...attributes,
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
    throw new Error(`the run history item ${key} kept changing under this write`);
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

  record(run: RunRecord): Promise<void> {
    return this.#update(
      runKey(run.scope, run.runId),
      parseRunRecord,
      (previous) => afterRecorded(previous, run),
      { expiresAt: expiresAfter(this.#now(), RUN_DAYS * 86_400) },
    );
  }

  async run(scope: string, runId: string): Promise<RunRecord | undefined> {
    const key = runKey(scope, runId);
    const text = (await this.#table.get(key, true))?.doc?.S;
    return text === undefined ? undefined : parseRunRecord(text, key);
  }
}
