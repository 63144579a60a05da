/**
 * The run history as items of the deployment's table (beside the ledger's, the breakers' and the
 * brakes'): `reconcile#scope#<scope>` holds the scope's state, `reconcile#run#<scope>#<runId>`
 * one run. Each is one JSON attribute (its shape versioned and parsed: run-history-items.ts), changed by read, change and a write conditional on its
 * revision; the scope item is written only when the snapshot it notes is newer, so two runs of
 * one scope cannot go back, and a run noted twice (plan, apply) keeps what each said.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { expiresAfter, LedgerTable, type LedgerTableOptions } from '../core/aws/ledger-table';
import type { RunRecord, ScopeState } from './run-history';
import { parseRunRecord, parseScopeState, storedItem } from './run-history-items';
import { RunHistoryStore } from './run-history-store';

export const RUN_HISTORY_KEY_PREFIX = 'reconcile#';
const RUN_DAYS = 400;
const scopeKey = (name: string) => `${RUN_HISTORY_KEY_PREFIX}scope#${name}`;
const runKey = (scope: string, runId: string) => `${RUN_HISTORY_KEY_PREFIX}run#${scope}#${runId}`;

export class DynamoDbRunHistory extends RunHistoryStore {
  readonly #table: LedgerTable;
  readonly #now: () => number;

  constructor(options: LedgerTableOptions & { readonly now?: () => number }) {
    super();
    this.#table = new LedgerTable(options);
    this.#now = options.now ?? Date.now;
  }

  async scope(name: string): Promise<ScopeState> {
    const key = scopeKey(name);
    const text = (await this.#table.get(key, true))?.doc?.S;
    return text === undefined ? {} : parseScopeState(text, key);
  }

  /** Read, change, write back on the condition that nobody wrote in between (else read again). */
  protected changeScope(name: string, change: (state: ScopeState) => ScopeState | undefined) {
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

  protected changeRun(
    scope: string,
    runId: string,
    change: (previous: RunRecord | undefined) => RunRecord,
  ): Promise<void> {
    return this.#update(runKey(scope, runId), parseRunRecord, change, {
      expiresAt: expiresAfter(this.#now(), RUN_DAYS * 86_400),
    });
  }

  async run(scope: string, runId: string): Promise<RunRecord | undefined> {
    const key = runKey(scope, runId);
    const text = (await this.#table.get(key, true))?.doc?.S;
    return text === undefined ? undefined : parseRunRecord(text, key);
  }
}
