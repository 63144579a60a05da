/**
 * Plan time for 100 000 rows against the simulator: a records scope (one campaign of 100 000
 * records; the sweep splits until no slice is full; 1 % of them edited, some missing, some
 * extra) and a users scope (a roster of 100 000, each checked with query-existence; all but 1 %
 * exist), planned with the same planner as `npm run ops -- reconcile plan`, unpaced (the
 * ceiling's part is on paper: docs/decisions.md). The ledger is seeded as a deployment's would
 * be after it made most of them: every record and user is ours but 1 % of each (made by hand),
 * so the plan takes the paths of a steady state (in sync, update, delete) as well as the
 * refusals (unmanaged, conflict). The simulator runs in this process, seeded directly; its CPU
 * counts in the time, so the numbers are an upper bound of the planner's own.
 */
import { createHash } from 'node:crypto';
import { familyKey, userKey } from '../lambdas/core/ledger/entity-key';
import { eventVersion } from '../lambdas/core/ledger/event-version';
import { InMemoryLedgerStore } from '../lambdas/core/ledger/in-memory-ledger-store';
import { recordFamily } from '../lambdas/entities/record-family';
import type { KnownFamily } from '../lambdas/entities/record-family/known';
import { user } from '../lambdas/entities/user';
import { type KnownUser, NOTHING_THERE } from '../lambdas/entities/user/known';
import { decodeExport } from '../lambdas/reconcile/export-decoder';
import { InMemoryRunHistory } from '../lambdas/reconcile/in-memory-run-history';
import { inMemoryLedgerItems, LedgerItemView } from '../lambdas/reconcile/ledger-item-view';
import type { Plan } from '../lambdas/reconcile/plan';
import { planSnapshot } from '../lambdas/reconcile/planner';
import { parseScopes } from '../lambdas/reconcile/scope';
import { startSimulator } from '../local/simulator';
import { localPlatformReader } from '../testkit';

export interface ReconcilePlanMeasurement {
  readonly kind: 'records' | 'users';
  readonly rows: number;
  readonly seconds: number;
  readonly platformReads: number;
  readonly counts: Plan['counts'];
  readonly sweep?: string;
}

const TENANT = { platformCode: 'BENCH', companyCode: 'bench', environmentName: 'bench' };
const API_KEY = 'reconcile-bench-key-0001';
const CAMPAIGN = 'Bench-Campaign';
const EXPORTED_AT = '2026-11-25T06:00:00.000Z';

const REGION = 'eu-central-1';
/** When the seeded ledger's entities were created: before the export. */
const CREATED = eventVersion(Date.parse('2026-11-20T08:00:00.000Z'), 'add', 'b'.repeat(16));

const id = (n: number) => `C-${String(n).padStart(6, '0')}`;

/** A ledger item as the functions leave it after creating the record, its events folded away. */
const recordCreatedByUs = (clientId: string) => ({
  schema: recordFamily.parts.schema,
  kind: recordFamily.name,
  id: { region: REGION, clientId },
  events: [],
  known: {
    places: {
      [CAMPAIGN]: { record: { origin: { kind: 'ours', born: CREATED }, at: CREATED, fields: {} } },
    },
    base: { [CAMPAIGN]: { gone: { by: 'nothing' } } },
    written: [CAMPAIGN],
  } satisfies KnownFamily,
});

const userCreatedByUs = (loginUserId: string) => ({
  schema: user.parts.schema,
  kind: user.name,
  id: { loginUserId },
  events: [],
  known: {
    place: { user: { origin: 'ours', born: CREATED, at: CREATED } },
    base: { stage: 'written', place: NOTHING_THERE },
  } satisfies KnownUser,
});

const seed = async (ledger: InMemoryLedgerStore, key: string, doc: object): Promise<void> => {
  await ledger.claim(key, { token: 'seed', until: 0, eventKey: 'seed' }, 0);
  await ledger.commit(key, 'seed', doc);
};

export const measureReconcilePlan = async (rows = 100_000): Promise<ReconcilePlanMeasurement[]> => {
  const simulator = await startSimulator({ ...TENANT, apiKey: API_KEY });
  try {
    const drift = Math.max(1, Math.floor(rows / 100));
    // Records: every row on the platform but the last `drift`, 1 % edited, `drift` extra.
    for (let n = 0; n < rows + drift; n += 1) {
      if (n >= rows - drift && n < rows) continue;
      simulator.state.putRecord({
        campaignName: CAMPAIGN,
        clientId: id(n),
        previewRecordData: [
          { key: 'CrmId', value: id(n) },
          { key: 'Name', value: n % 100 === 7 ? 'edited by hand' : `Lead ${n}` },
        ],
      });
    }
    const recordCsv = `campaignName,clientId,data.CrmId,data.Name\n${Array.from({ length: rows }, (_, n) => `${CAMPAIGN},${id(n)},${id(n)},Lead ${n}`).join('\n')}\n`;
    // Users: all but `drift` of the roster exist.
    for (let n = drift; n < rows; n += 1) {
      simulator.state.addUser({
        loginUserId: `u${n}@example.com`,
        firstName: 'F',
        lastName: 'L',
        userTemplateName: 'T',
      });
    }
    const userCsv = `loginUserId,firstName,lastName,userTemplateName\n${Array.from({ length: rows }, (_, n) => `u${n}@example.com,F,L,T`).join('\n')}\n`;
    const scopes = parseScopes({
      records: { kind: 'records', campaigns: [CAMPAIGN], splitKeys: ['CrmId'] },
      users: { kind: 'users' },
    });
    if (!scopes.success) throw new Error(scopes.error);
    // Ours: every record but the second half of the extras, every user but the first `drift`
    // that exist.
    const ledger = new InMemoryLedgerStore();
    for (let n = 0; n < rows + Math.floor(drift / 2); n += 1) {
      await seed(ledger, familyKey(REGION, id(n)), recordCreatedByUs(id(n)));
    }
    for (let n = 2 * drift; n < rows; n += 1) {
      const loginUserId = `u${n}@example.com`;
      await seed(ledger, userKey(loginUserId), userCreatedByUs(loginUserId));
    }
    const results: ReconcilePlanMeasurement[] = [];
    for (const [kind, csv] of [
      ['records', recordCsv],
      ['users', userCsv],
    ] as const) {
      const bytes = Buffer.from(csv);
      const manifest = {
        kind,
        scope: kind,
        file: `${kind}.csv`,
        exportedAt: EXPORTED_AT,
        rowCount: rows,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      };
      const started = performance.now();
      const run = await planSnapshot({
        manifestText: JSON.stringify(manifest),
        manifestWhere: `${kind}.manifest.json`,
        readExport: async () => bytes,
        decode: decodeExport,
        scopes: scopes.scopes,
        campaignRegion: REGION,
        reader: () =>
          localPlatformReader({ ...TENANT, baseUrl: simulator.baseUrl, apiKey: API_KEY }),
        ledger: () => new LedgerItemView({ items: inMemoryLedgerItems(ledger) }),
        history: new InMemoryRunHistory(),
        readPlan: async () => '',
        now: Date.now(),
        concurrency: 8,
      });
      const seconds = (performance.now() - started) / 1000;
      const sweep = run.plan.sweeps?.[0];
      results.push({
        kind,
        rows,
        seconds,
        platformReads: run.plan.platformReads,
        counts: run.plan.counts,
        ...(sweep === undefined
          ? {}
          : {
              sweep: `${sweep.records} records in ${sweep.searches} searches, ${sweep.complete ? 'complete' : 'not complete'}`,
            }),
      });
    }
    return results;
  } finally {
    await simulator.close();
  }
};

export const reconcilePlanText = (results: readonly ReconcilePlanMeasurement[]): string =>
  [
    'Reconcile plan time against the simulator (same process, unpaced):',
    ...results.map(
      (r) =>
        `  ${r.kind.padEnd(8)} ${r.rows} rows: ${r.seconds.toFixed(1)} s, ${r.platformReads} platform reads${r.sweep ? ` (${r.sweep})` : ''}; create ${r.counts.create}, update ${r.counts.update}, delete ${r.counts.delete}, unmanaged ${r.counts.unmanaged}, conflict ${r.counts.conflict}, in sync ${r.counts['in-sync']}`,
    ),
  ].join('\n');

if (import.meta.main) {
  const rows = Number(process.argv[2] ?? 100_000);
  console.log(reconcilePlanText(await measureReconcilePlan(rows)));
}
