/**
 * What the plan asks the ledger: a record the platform holds beyond the export is ours (a delete)
 * only when the ledger shows this integration created it in that campaign; the family's record
 * in another campaign does not make a hand-made one ours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyKey } from '../../../lambdas/core/ledger/entity-key';
import { eventVersion } from '../../../lambdas/core/ledger/event-version';
import { recordFamily } from '../../../lambdas/entities/record-family';
import { WORKED_BY_AGENT } from '../../../lambdas/reconcile/delete-gate';
import { type LedgerItems, LedgerItemView } from '../../../lambdas/reconcile/ledger-item-view';
import { buildPlan } from '../../../lambdas/reconcile/plan';
import { KEPT_ITEM_UNSENDABLE } from '../../../lambdas/reconcile/plan-records';
import type { RecordsScope } from '../../../lambdas/reconcile/scope';
import type { RecordRow, Snapshot } from '../../../lambdas/reconcile/snapshot';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { localPlatformReader } from '../../../testkit';
import { scopesOf } from '../../support/reconcile-scopes';
import { TEST_TENANT } from '../../support/test-tenant';
import { expectSkippedAsNewer, LIVE_EVENTS, withNewestEventsAt } from './plan-fixture';

const API_KEY = 'plan-ledger-key-000001';
const REGION = 'eu-central-1';
const SCOPE_CAMPAIGN = 'Leads';
let simulator: RunningSimulator;

beforeAll(async () => {
  simulator = await startSimulator({ ...TEST_TENANT, apiKey: API_KEY });
});
afterAll(async () => {
  await simulator?.close();
});

const scope = (): RecordsScope =>
  scopesOf({
    leads: {
      kind: 'records',
      campaigns: [SCOPE_CAMPAIGN],
      splitKeys: ['CrmId'],
      deleteGate: { count: 100, percent: 0 },
    },
  }).leads as RecordsScope;

/** A records snapshot of the scope holding one row, `R-keep`. */
const snapshot = (): Extract<Snapshot, { kind: 'records' }> => ({
  kind: 'records',
  id: 'abc',
  scope: scope(),
  manifest: {
    kind: 'records',
    scope: 'leads',
    file: 'leads.csv',
    format: 'csv',
    exportedAt: '2026-11-25T06:00:00.000Z',
    rowCount: 1,
    sha256: 'a'.repeat(64),
  },
  rows: [
    {
      line: 2,
      region: REGION,
      campaignName: SCOPE_CAMPAIGN,
      clientId: 'R-keep',
      message: {
        campaignName: SCOPE_CAMPAIGN,
        clientId: 'R-keep',
        previewRecordData: [{ key: 'CrmId', value: 'R-keep' }],
      },
    },
  ],
});

/** An export row of the scope campaign at `line`, its one data item `CrmId`. */
const rowOf = (line: number, clientId: string, crmId: string): RecordRow => ({
  line,
  region: REGION,
  campaignName: SCOPE_CAMPAIGN,
  clientId,
  message: {
    campaignName: SCOPE_CAMPAIGN,
    clientId,
    previewRecordData: [{ key: 'CrmId', value: crmId }],
  },
});

/** The ledger's item of a family whose record this integration created in `campaign`. */
const createdIn = (clientId: string, campaign: string) => {
  const v = eventVersion(Date.parse('2026-11-20T08:00:00.000Z'), 'add', 'f'.repeat(16));
  return {
    schema: recordFamily.parts.schema,
    kind: 'record-family',
    id: { region: REGION, clientId },
    events: [],
    known: {
      places: { [campaign]: { record: { origin: { kind: 'ours', born: v }, at: v, fields: {} } } },
      base: {},
      written: [campaign],
    },
  };
};

const ledgerOf = (items: ReadonlyMap<string, unknown>): LedgerItems => ({
  read: async (key) => structuredClone(items.get(key)),
  users: async function* () {},
});

/** The scope campaign holds R-keep (exported) and R-1 (not exported, made by hand unless the ledger says otherwise). */
const seedScopeCampaign = (): void => {
  simulator.reset();
  for (const clientId of ['R-keep', 'R-1']) {
    simulator.state.putRecord({
      campaignName: SCOPE_CAMPAIGN,
      clientId,
      previewRecordData: [{ key: 'CrmId', value: clientId }],
    });
  }
};

/**
 * The plan of `of` (the snapshot), with a ledger that shows R-1 created by us in `campaign` (and,
 * when given, a live event of every entity at `liveEventAt`), and R-1's entry.
 */
const planWithR1CreatedIn = async (campaign: string, of = snapshot(), liveEventAt?: string) => {
  const items = new LedgerItemView({
    items: ledgerOf(new Map([[familyKey(REGION, 'R-1'), createdIn('R-1', campaign)]])),
  });
  const ledger = liveEventAt === undefined ? items : withNewestEventsAt(items, liveEventAt);
  const plan = await buildPlan({
    snapshot: of,
    reader: localPlatformReader({ ...TEST_TENANT, baseUrl: simulator.baseUrl, apiKey: API_KEY }),
    ledger,
    now: Date.parse('2026-11-25T08:00:00.000Z'),
  });
  return { plan, entry: plan.entries.find((e) => e.entity === `record:${SCOPE_CAMPAIGN}:R-1`) };
};

// A family created by us in the scope campaign is a delete: the `worked: false` row below.
describe('plan: which records beyond the export are ours', () => {
  it('a record beyond the export, its family created by us in another campaign only, is planned unmanaged', async () => {
    // Prepare
    seedScopeCampaign();

    // Act
    const { entry } = await planWithR1CreatedIn('Elsewhere');

    // Assess
    expect(entry?.category).toBe('unmanaged');
    expect(entry?.reason).toBe('NOT_CREATED_BY_US');
  });
});

describe('plan: a live event newer than the export', () => {
  it.each(LIVE_EVENTS)(
    'at $liveEventAt (export 06:00) skips every change: $skipped',
    async ({ liveEventAt, skipped }) => {
      // Prepare: R-keep exported with new data (an update), R-new exported and absent (a create),
      // R-1 ours and not exported (a delete).
      seedScopeCampaign();
      const base = snapshot();
      const of: Snapshot = {
        ...base,
        manifest: { ...base.manifest, rowCount: 2 },
        rows: [rowOf(2, 'R-keep', 'R-keep v2'), rowOf(3, 'R-new', 'R-new')],
      };

      // Act
      const { plan } = await planWithR1CreatedIn(SCOPE_CAMPAIGN, of, liveEventAt);

      // Assess
      const changes = plan.entries.filter((e) => e.category !== 'in-sync');
      expect(changes.map((e) => [e.entity.split(':')[2], e.category])).toEqual(
        skipped
          ? [
              ['R-1', 'skipped'],
              ['R-keep', 'skipped'],
              ['R-new', 'skipped'],
            ]
          : [
              ['R-new', 'create'],
              ['R-keep', 'update'],
              ['R-1', 'delete'],
            ],
      );
      expectSkippedAsNewer(changes, skipped);
    },
  );
});

describe('plan: a record beyond the export that an agent has worked', () => {
  it.each([
    { worked: false, reason: undefined, held: false },
    { worked: true, reason: WORKED_BY_AGENT, held: true },
  ])(
    'worked: $worked, is a delete with reason $reason, held: $held',
    async ({ worked, reason, held }) => {
      // Prepare: R-1, ours and not exported, one delete well inside the gate.
      seedScopeCampaign();
      if (worked) {
        simulator.state.recordAttempt(
          SCOPE_CAMPAIGN,
          { clientId: 'R-1' },
          {
            agent: 'agent.c@example.com',
            at: Date.parse('2026-11-24T10:00:00.000Z'),
            workedState: 'COMPLETED',
            workCodes: [{ key: 'Outcome', value: 'Sale' }],
          },
        );
      }

      // Act
      const { plan, entry } = await planWithR1CreatedIn(SCOPE_CAMPAIGN);

      // Assess: its attempts and work codes would go with it, so a person must allow the deletes.
      expect(entry?.category).toBe('delete');
      expect(entry?.reason).toBe(reason);
      expect(plan.deletes).toMatchObject({ count: 1, held });
      expect(plan.deletes.heldBecause.join()).toMatch(held ? /agents have worked/ : /^$/);
    },
  );
});

describe('plan: data keys no row of the export carries', () => {
  type Items = Parameters<RunningSimulator['state']['putRecord']>[0]['previewRecordData'];
  /** The platform, reset, holding R-keep with `items` (and R-same with `same`, when given). */
  const holding = (items: Items, same?: Items): void => {
    simulator.reset();
    simulator.state.putRecord({
      campaignName: SCOPE_CAMPAIGN,
      clientId: 'R-keep',
      previewRecordData: items,
    });
    if (same !== undefined) {
      simulator.state.putRecord({
        campaignName: SCOPE_CAMPAIGN,
        clientId: 'R-same',
        previewRecordData: same,
      });
    }
  };
  const planOf = (of: Snapshot) =>
    buildPlan({
      snapshot: of,
      reader: localPlatformReader({ ...TEST_TENANT, baseUrl: simulator.baseUrl, apiKey: API_KEY }),
      ledger: new LedgerItemView({ items: ledgerOf(new Map()) }),
      now: Date.parse('2026-11-25T08:00:00.000Z'),
    });

  it('keeps them: an update sends them back, a record that differs only there is in sync, and the plan names them', async () => {
    // Prepare: R-keep holds Legacy (no row has that column) and an old CrmId value; R-same
    // differs from its row only by Legacy
    holding(
      [
        { key: 'CrmId', value: 'old' },
        { key: 'Legacy', value: 'x', displayOrder: 3 },
      ],
      [
        { key: 'CrmId', value: 'R-same' },
        { key: 'Legacy', value: 'y' },
      ],
    );
    const base = snapshot();

    // Act
    const plan = await planOf({
      ...base,
      kind: 'records',
      rows: [rowOf(2, 'R-keep', 'R-keep'), rowOf(3, 'R-same', 'R-same')],
      manifest: { ...base.manifest, rowCount: 2 },
    } as Snapshot);

    // Assess
    const entry = (clientId: string) =>
      plan.entries.find((e) => e.entity === `record:${SCOPE_CAMPAIGN}:${clientId}`);
    expect(entry('R-keep')).toMatchObject({ category: 'update', fields: ['data.CrmId'] });
    expect(entry('R-keep')?.repair?.message.previewRecordData).toEqual([
      { key: 'CrmId', value: 'R-keep' },
      { key: 'Legacy', value: 'x', displayOrder: 3 },
    ]);
    expect(entry('R-same')?.category).toBe('in-sync');
    expect(plan.keptKeys).toEqual([{ key: 'Legacy', records: 2 }]);
  });

  it('leaves a record as it is when an item it would keep is one the message contract refuses', async () => {
    // Prepare: R-keep differs from its row, and holds an unexported item with displayOrder 0
    // (the platform took it; the contract wants 1 or more) and the platform's own Id item
    holding([
      { key: 'CrmId', value: 'old' },
      { key: 'Id', value: 'R-keep' },
      { key: 'Odd', value: 'x', displayOrder: 0 },
    ]);

    // Act
    const plan = await planOf(snapshot());

    // Assess: not an update that would erase Odd, nor one apply would refuse; Id is never kept
    const entry = plan.entries.find((e) => e.entity === `record:${SCOPE_CAMPAIGN}:R-keep`);
    expect(entry).toEqual({
      entity: `record:${SCOPE_CAMPAIGN}:R-keep`,
      line: 2,
      category: 'skipped',
      reason: KEPT_ITEM_UNSENDABLE,
      fields: ['data.CrmId'],
    });
    expect(plan.keptKeys).toEqual([{ key: 'Odd', records: 1 }]);
  });
});
