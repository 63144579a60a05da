/**
 * A records scope's part of the plan: each campaign's records found (the sweep, and each exported
 * clientId it did not see), each exported row compared with its record through the record
 * family's one comparison (`record-data.ts`), and each record beyond the export judged: create,
 * update, delete, conflict, unmanaged, skipped or in sync. Data keys no row carries are kept.
 */
import { type MessageOf, parseMessage } from '../actions';
import { mapLimit } from '../core/entry/concurrency';
import type { CampaignRecord } from '../core/platform/platform-responses';
import type { PlatformRegion } from '../core/platform/regions';
import { clientIdKeys, differingKeys, heldItems } from '../entities/record-family/record-data';
import { CATEGORY_TABLE, type PlanEntry, type RepairAction } from './categories';
import { entityCorrelation, rowCorrelation, stamp } from './correlation-ids';
import { WORKED_BY_AGENT } from './delete-gate';
import type { Candidate, Plan, PlanInputs, PlanPart } from './plan';
import type { EntryReason } from './reconcile-codes';
import { type CampaignSweep, lookUpUnseen, sweepCampaign } from './record-sweep';
import type { RecordRow, Snapshot } from './snapshot';

/**
 * The reason of an update left unsent: an item it would keep (a key no row of the export
 * carries) is one the message contract refuses.
 */
export const KEPT_ITEM_UNSENDABLE: Extract<EntryReason, 'KEPT_ITEM_UNSENDABLE'> =
  'KEPT_ITEM_UNSENDABLE';

type RecordsSnapshot = Extract<Snapshot, { kind: 'records' }>;

/** What every entry of one campaign's part of a records plan is made with. */
interface CampaignPlanning {
  readonly snapshot: RecordsSnapshot;
  readonly campaign: string;
  readonly region: PlatformRegion;
  /** Every data key some row of the export carries: only these are compared (others are kept). */
  readonly exportedKeys: ReadonlySet<string>;
}

const recordEntity = (campaign: string, clientId: string) => `record:${campaign}:${clientId}`;

/** An action's own fields: its message without a record's address and the repair's stamp. */
type OwnFields<A extends RepairAction> = Omit<
  MessageOf<A>,
  'campaignName' | 'region' | 'clientId' | 'previewRecordId' | 'correlationId' | 'occurredAt'
>;

/**
 * A repair of the record `clientId` in the planning's campaign, sent as `action`: addressed as
 * every record action addresses one (campaignName, region, clientId), stamped, with the action's
 * own `fields` (typed by its message). The plan file checks the message against the action's
 * schema when it reads it (test/unit/reconcile/plan-file.test.ts, "refuses an edited repair").
 */
const addressedRepair = <A extends RepairAction>(
  { snapshot, campaign, region }: CampaignPlanning,
  action: A,
  to: { readonly clientId: string; readonly correlationId: string },
  fields: OwnFields<A>,
): NonNullable<PlanEntry['repair']> => ({
  action,
  message: {
    campaignName: campaign,
    region,
    clientId: to.clientId,
    ...fields,
    ...stamp(snapshot, to.correlationId),
  },
});

const recordRef = (region: string, clientId: string) =>
  ({ kind: 'record', region, clientId }) as const;

/** The record's items a message could have sent (without the clientId item an add stores). */
const storedItems = (record: CampaignRecord, row: RecordRow) =>
  heldItems(record, clientIdKeys([row.message]), row.message.previewRecordData);

/**
 * The data fields a record differs in from its row (`data.<key>`), by the record family's one
 * comparison (`differingKeys`, which the live path's steps use too), leaving out items whose key no row
 * of the export carries (`exportedKeys`: kept, see `Plan.keptKeys`). preferredAgent and the next
 * work time are the platform's to change (an agent's work, the 30-minute preference), so they
 * are not compared and an update does not send them.
 */
export const differingFields = (
  record: CampaignRecord,
  row: RecordRow,
  exportedKeys: ReadonlySet<string>,
): string[] =>
  differingKeys(record, row.message.previewRecordData, clientIdKeys([row.message]), (key) =>
    exportedKeys.has(key),
  ).map((key) => `data.${key}`);

/**
 * An update's data items: the row's, and the record's items under keys no row of the export
 * carries, sent back as they are (an add-or-update replaces all of a record's data).
 */
const updatedItems = (
  record: CampaignRecord,
  row: RecordRow,
  exportedKeys: ReadonlySet<string>,
): RecordRow['message']['previewRecordData'] => [
  ...row.message.previewRecordData,
  ...storedItems(record, row)
    .filter((item) => !exportedKeys.has(item.key))
    .map(({ key, value, displayOrder }) => ({
      key,
      value,
      ...(displayOrder === undefined ? {} : { displayOrder }),
    })),
];

/** The campaign's swept records by clientId: more than one under a clientId is a conflict. */
const recordsByClientId = (records: readonly CampaignRecord[]): Map<string, CampaignRecord[]> => {
  const byClientId = new Map<string, CampaignRecord[]>();
  for (const record of records) {
    byClientId.set(record.clientId, [...(byClientId.get(record.clientId) ?? []), record]);
  }
  return byClientId;
};

/**
 * A row whose one record the platform holds: in sync when the record family's comparison finds
 * no field differing, else an update; skipped when the update could not be sent whole. Queue and
 * zone are data items here (`SkillQueue`, `ItemTimeZone`): compared as data, and an update that
 * carries them sets the record's `skillQueue` / `timeZone` (spec, special keys; the record's own
 * fields, which a status change or transfer may set since, are not compared).
 */
const comparedRow = (
  { snapshot, exportedKeys }: CampaignPlanning,
  row: RecordRow,
  record: CampaignRecord,
  entity: string,
): PlanEntry => {
  const line = row.line;
  const fields = differingFields(record, row, exportedKeys);
  if (fields.length === 0) return { entity, line, category: 'in-sync' };
  const { preferredAgent: _a, nextEarliestWorkTimeUTC: _n, ...data } = row.message;
  const message = {
    ...data,
    previewRecordData: updatedItems(record, row, exportedKeys),
    ...stamp(snapshot, rowCorrelation(snapshot, line)),
  };
  // The row passed the message contract; an item kept from the platform may not (the contract
  // is stricter than the platform, or the items are too many together). Sent without it, the
  // update would erase it; sent with it, the message would be refused: the record is left as it
  // is, and the report names it.
  const action = CATEGORY_TABLE.update.repairs.records;
  return parseMessage(action, message).success
    ? {
        entity,
        line,
        category: 'update',
        fields,
        repair: { action, message },
      }
    : { entity, line, category: 'skipped', reason: KEPT_ITEM_UNSENDABLE, fields };
};

/** A row of the export: a conflict when its clientId is held twice, a create when absent. */
const exportedRowEntry = (
  planning: CampaignPlanning,
  row: RecordRow,
  found: readonly CampaignRecord[],
): PlanEntry => {
  const { snapshot, campaign } = planning;
  const entity = recordEntity(campaign, row.clientId);
  const line = row.line;
  if (found.length > 1) {
    return { entity, line, category: 'conflict', reason: 'DUPLICATE_CLIENT_ID' };
  }
  if (found[0] !== undefined) return comparedRow(planning, row, found[0], entity);
  return {
    entity,
    line,
    category: 'create',
    repair: {
      action: CATEGORY_TABLE.create.repairs.records,
      message: { ...row.message, ...stamp(snapshot, rowCorrelation(snapshot, line)) },
    },
  };
};

/**
 * A record beyond the export: a conflict when its clientId is held twice; unmanaged when never
 * ours (unless the scope deletes those); skipped when the sweep is incomplete (it may not be
 * beyond the export at all); else a delete.
 */
const extraRecordEntry = (
  planning: CampaignPlanning,
  clientId: string,
  found: readonly CampaignRecord[],
  ours: boolean,
  sweepComplete: boolean,
): PlanEntry => {
  const { snapshot } = planning;
  const entity = recordEntity(planning.campaign, clientId);
  if (found.length > 1) return { entity, category: 'conflict', reason: 'DUPLICATE_CLIENT_ID' };
  if (!ours && !snapshot.scope.deleteUnmanaged) {
    return { entity, category: 'unmanaged', reason: 'NOT_CREATED_BY_US' };
  }
  if (!sweepComplete) return { entity, category: 'skipped', reason: 'SWEEP_INCOMPLETE' };
  // An agent's attempts and work codes go with the record: such deletes are held whole for a
  // person to allow (deleteGate), and named so, whoever made the record.
  const worked = found.some((record) => record.workAttempts > 0);
  return {
    entity,
    category: 'delete',
    ...(worked ? { reason: WORKED_BY_AGENT } : ours ? {} : { reason: 'UNMANAGED_DELETE_ALLOWED' }),
    repair: addressedRepair(
      planning,
      CATEGORY_TABLE.delete.repairs.records,
      {
        clientId,
        correlationId: entityCorrelation(snapshot, entity),
      },
      {},
    ),
  };
};

/** Counts the record's items under keys no row of the export carries: kept, and reported. */
const countKeptItems = (
  kept: Map<string, number>,
  record: CampaignRecord,
  row: RecordRow,
  exportedKeys: ReadonlySet<string>,
): void => {
  for (const item of storedItems(record, row)) {
    if (!exportedKeys.has(item.key)) kept.set(item.key, (kept.get(item.key) ?? 0) + 1);
  }
};

/**
 * The campaign's records: its sweep, and each of its exported clientIds the sweep did not see.
 * The sweep reads every record in each of the four worked states, each with its `workedState`
 * (test/unit/reconcile/record-sweep.test.ts).
 */
const findRecords = async (
  { snapshot, campaign, region }: CampaignPlanning,
  own: readonly RecordRow[],
  inputs: PlanInputs,
): Promise<CampaignSweep> => {
  const concurrency = inputs.concurrency ?? 4;
  const { splitKeys } = snapshot.scope;
  const options = { reader: inputs.reader, region, splitKeys, concurrency };
  return lookUpUnseen(
    await sweepCampaign(campaign, options),
    own.map((row) => row.clientId),
    options,
  );
};

/** The entries of the records beyond the export, each asked of the ledger: is it ours? */
const extraCandidates = async (
  planning: CampaignPlanning,
  extras: readonly (readonly [string, CampaignRecord[]])[],
  inputs: PlanInputs,
  sweepComplete: boolean,
): Promise<Candidate[]> => {
  const { campaign, region } = planning;
  const owned = await mapLimit(extras, inputs.concurrency ?? 4, ([clientId]) =>
    inputs.ledger.createdByUs({ kind: 'record', region, clientId, campaign }),
  );
  return extras.map(([clientId, found], index) => ({
    ref: recordRef(region, clientId),
    entry: extraRecordEntry(planning, clientId, found, owned[index] === true, sweepComplete),
  }));
};

/**
 * One campaign of a records scope: find its records, then the entry of each exported row, then
 * of each record beyond the export.
 */
const planCampaign = async (
  planning: CampaignPlanning,
  inputs: PlanInputs,
  kept: Map<string, number>,
): Promise<{ candidates: Candidate[]; sweep: CampaignSweep }> => {
  const { snapshot, campaign, region, exportedKeys } = planning;
  const own = snapshot.rows.filter((row) => row.campaignName === campaign);
  const sweep = await findRecords(planning, own, inputs);
  const byClientId = recordsByClientId(sweep.records);
  const rows = own.map((row): Candidate => {
    const found = byClientId.get(row.clientId) ?? [];
    if (found.length === 1 && found[0] !== undefined) {
      countKeptItems(kept, found[0], row, exportedKeys);
    }
    return { ref: recordRef(region, row.clientId), entry: exportedRowEntry(planning, row, found) };
  });
  const exported = new Set(own.map((row) => row.clientId));
  const extras = [...byClientId.entries()].filter(([clientId]) => !exported.has(clientId));
  const beyond = await extraCandidates(planning, extras, inputs, sweep.complete);
  return { candidates: [...rows, ...beyond], sweep };
};

/** What a records plan reports besides its entries: each campaign's sweep, and the kept keys. */
const recordsFacts = (
  sweeps: readonly CampaignSweep[],
  kept: ReadonlyMap<string, number>,
): Pick<Plan, 'sweeps' | 'keptKeys'> => {
  const keptKeys = [...kept]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, records]) => ({ key, records }));
  return {
    sweeps: sweeps.map(({ records: _r, ...sweep }) => ({ ...sweep, records: _r.length })),
    ...(keptKeys.length > 0 ? { keptKeys } : {}),
  };
};

/** A records scope: each of its campaigns in turn. */
export const planRecords = async (
  snapshot: RecordsSnapshot,
  inputs: PlanInputs,
): Promise<PlanPart> => {
  const { scope, rows } = snapshot;
  const exportedKeys = new Set(
    rows.flatMap((row) => row.message.previewRecordData.map((item) => item.key)),
  );
  const kept = new Map<string, number>();
  const region = rows[0]?.region ?? scope.region;
  if (region === undefined) throw new Error('a records snapshot has rows, and rows have a region');
  const candidates: Candidate[] = [];
  const sweeps: CampaignSweep[] = [];
  for (const campaign of scope.campaigns) {
    const planned = await planCampaign({ snapshot, campaign, region, exportedKeys }, inputs, kept);
    candidates.push(...planned.candidates);
    sweeps.push(planned.sweep);
  }
  const swept = sweeps.reduce((n, s) => n + s.records.length, 0);
  return {
    candidates,
    scopeSize: Math.max(swept, rows.length),
    facts: recordsFacts(sweeps, kept),
  };
};
