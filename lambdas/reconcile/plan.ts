/**
 * The plan: every entity of the scope in one category, with the repair message of each change,
 * and the delete gates applied. Built from a verified snapshot, what the platform holds, and
 * what the ledger knows; nothing here changes anything.
 */
import { createHash } from 'node:crypto';
import { parseMessage } from '../actions';
import { mapLimit } from '../core/entry/concurrency';
import type { CampaignRecord } from '../core/platform/platform-responses';
import type { PlatformRegion } from '../core/platform/regions';
import { clientIdKeys, differingKeys, heldItems } from '../entities/record-family/record-data';
import { userCoverage } from './coverage';
import type { LedgerView } from './ledger-view';
import type { PlatformReader } from './platform-reader';
import type { EntryReason } from './reconcile-codes';
import { type CampaignSweep, lookUpUnseen, sweepCampaign } from './record-sweep';
import type { RepairAction } from './repair-actions';
import type { ReconcileScope, UsersScope } from './scope';
import type { RecordRow, Snapshot, UserRow } from './snapshot';

export const CATEGORIES = [
  'create',
  'update',
  'delete',
  'unmanaged',
  'conflict',
  'skipped',
  'in-sync',
] as const;
export type Category = (typeof CATEGORIES)[number];
/** The categories that change the platform. */
export const CHANGES: readonly Category[] = ['create', 'update', 'delete'];

export type { RepairAction } from './repair-actions';

export interface PlanEntry {
  /** `user:<loginUserId>` or `record:<campaign>:<clientId>`. */
  readonly entity: string;
  readonly category: Category;
  /** Why, for every category but create and in-sync (reconcile-codes.ts). */
  readonly reason?: EntryReason;
  /** OWNER_AMBIGUOUS: every scope that covers or may cover the user, this one first. */
  readonly scopes?: readonly string[];
  /** An update: the fields that differ (`data.<key>`). */
  readonly fields?: readonly string[];
  /** The export line the entity came from. */
  readonly line?: number;
  /** A change: the message that repairs it, stamped `occurredAt = exportedAt`. */
  readonly repair?: { readonly action: RepairAction; readonly message: Record<string, unknown> };
}

/** A campaign's sweep without its records: how many, how it was read, whether it is complete. */
export type SweepSummary = Omit<CampaignSweep, 'records'> & { readonly records: number };

export interface SnapshotFacts {
  readonly id: string;
  readonly file: string;
  readonly exportedAt: string;
  readonly rowCount: number;
  readonly sha256: string;
}

export interface Plan {
  readonly version: 1;
  readonly planId: string;
  readonly createdAt: string;
  readonly scope: string;
  readonly kind: 'users' | 'records';
  readonly snapshot: SnapshotFacts;
  /** The scope's latest snapshot before this one (shrink guard, user candidates). */
  readonly previous?: Omit<SnapshotFacts, 'id' | 'file'>;
  readonly counts: Readonly<Record<Category, number>>;
  readonly deletes: {
    readonly count: number;
    /** max(N, p % of the scope's size). */
    readonly gate: number;
    readonly scopeSize: number;
    /** The whole delete set waits for `--allow-deletes <count>`. */
    readonly held: boolean;
    readonly heldBecause: readonly string[];
  };
  /** Records: each campaign's sweep. */
  readonly sweeps?: readonly SweepSummary[];
  /**
   * Records: data keys the platform holds that no row of the export carries, with how many
   * records hold each. Kept, not erased: an export without a column is not taken to mean that
   * every record loses that item.
   */
  readonly keptKeys?: readonly { readonly key: string; readonly records: number }[];
  /** Users: candidates checked with query-existence, and what the plan cannot see. */
  readonly candidates?: { readonly checked: number; readonly outOfReach: string };
  /** Platform reads the plan made. */
  readonly platformReads: number;
  readonly entries: readonly PlanEntry[];
}

/** The scope's snapshot before this one, as the run history keeps it. */
export interface PreviousSnapshot {
  readonly exportedAt: string;
  readonly rowCount: number;
  readonly sha256: string;
  /** Users: the loginUserIds it held (candidates); undefined when no longer available. */
  readonly keys?: () => AsyncIterable<string>;
}

export interface PlanInputs {
  readonly snapshot: Snapshot;
  readonly reader: PlatformReader;
  readonly ledger: LedgerView;
  readonly previous?: PreviousSnapshot | undefined;
  readonly now: number;
  /**
   * Every scope of the deployment: a users plan holds the delete of a user another scope covers
   * too. @default the snapshot's scope alone
   */
  readonly scopes?: Readonly<Record<string, ReconcileScope>>;
  /** Reads in flight at once. @default 4 */
  readonly concurrency?: number;
}

const sha8 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 8);

/** Correlation ids: the snapshot and its row (or, for what the export lacks, the entity). */
const rowCorrelation = (snapshot: Snapshot, line: number) => `reconcile@${snapshot.id}#${line}`;
const entityCorrelation = (snapshot: Snapshot, entity: string) =>
  `reconcile@${snapshot.id}#x${sha8(entity)}`;

const recordEntity = (campaign: string, clientId: string) => `record:${campaign}:${clientId}`;
const userEntity = (loginUserId: string) => `user:${loginUserId}`;

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

interface Candidate {
  readonly entry: PlanEntry;
  /** For the newer-event check: the entity as the ledger names it. */
  readonly ref: Parameters<LedgerView['newestEventAt']>[0];
}

type RecordsSnapshot = Extract<Snapshot, { kind: 'records' }>;

/** What every entry of one campaign's part of a records plan is made with. */
interface CampaignPlanning {
  readonly snapshot: RecordsSnapshot;
  readonly campaign: string;
  readonly region: PlatformRegion;
  /** Every data key some row of the export carries: only these are compared (others are kept). */
  readonly exportedKeys: ReadonlySet<string>;
}

const recordRef = (region: string, clientId: string) =>
  ({ kind: 'record', region, clientId }) as const;

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
 * no field differing, else an update; skipped when the update could not be sent whole.
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
    correlationId: rowCorrelation(snapshot, line),
    occurredAt: snapshot.manifest.exportedAt,
  };
  // The row passed the message contract; an item kept from the platform may not (the contract
  // is stricter than the platform, or the items are too many together). Sent without it, the
  // update would erase it; sent with it, the message would be refused: the record is left as it
  // is, and the report names it.
  return parseMessage('add-or-update-campaign-record', message).success
    ? {
        entity,
        line,
        category: 'update',
        fields,
        repair: { action: 'add-or-update-campaign-record', message },
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
      action: 'add-or-update-campaign-record',
      message: {
        ...row.message,
        correlationId: rowCorrelation(snapshot, line),
        occurredAt: snapshot.manifest.exportedAt,
      },
    },
  };
};

/**
 * A record beyond the export: a conflict when its clientId is held twice; unmanaged when never
 * ours (unless the scope deletes those); skipped when the sweep is incomplete (it may not be
 * beyond the export at all); else a delete.
 */
const extraRecordEntry = (
  { snapshot, campaign, region }: CampaignPlanning,
  clientId: string,
  found: readonly CampaignRecord[],
  ours: boolean,
  sweepComplete: boolean,
): PlanEntry => {
  const entity = recordEntity(campaign, clientId);
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
    repair: {
      action: 'delete-campaign-record',
      message: {
        campaignName: campaign,
        region,
        clientId,
        correlationId: entityCorrelation(snapshot, entity),
        occurredAt: snapshot.manifest.exportedAt,
      },
    },
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
 * One campaign of a records scope: find its records (the sweep, and each exported clientId it
 * did not see), then the entry of each exported row, then of each record beyond the export.
 */
const planCampaign = async (
  planning: CampaignPlanning,
  inputs: PlanInputs,
  kept: Map<string, number>,
): Promise<{ candidates: Candidate[]; sweep: CampaignSweep }> => {
  const { snapshot, campaign, region, exportedKeys } = planning;
  const { scope } = snapshot;
  const concurrency = inputs.concurrency ?? 4;
  const own = snapshot.rows.filter((row) => row.campaignName === campaign);
  const options = { reader: inputs.reader, region, splitKeys: scope.splitKeys, concurrency };
  const sweep = await lookUpUnseen(
    await sweepCampaign(campaign, options),
    own.map((row) => row.clientId),
    options,
  );
  const byClientId = recordsByClientId(sweep.records);
  const candidates = own.map((row): Candidate => {
    const found = byClientId.get(row.clientId) ?? [];
    if (found.length === 1 && found[0] !== undefined) {
      countKeptItems(kept, found[0], row, exportedKeys);
    }
    return {
      ref: recordRef(region, row.clientId),
      entry: exportedRowEntry(planning, row, found),
    };
  });
  const exported = new Set(own.map((row) => row.clientId));
  const extras = [...byClientId.entries()].filter(([clientId]) => !exported.has(clientId));
  const owned = await mapLimit(extras, concurrency, ([clientId]) =>
    inputs.ledger.createdByUs({ kind: 'record', region, clientId, campaign }),
  );
  extras.forEach(([clientId, found], index) => {
    candidates.push({
      ref: recordRef(region, clientId),
      entry: extraRecordEntry(planning, clientId, found, owned[index] === true, sweep.complete),
    });
  });
  return { candidates, sweep };
};

const planRecords = async (
  snapshot: RecordsSnapshot,
  inputs: PlanInputs,
): Promise<{
  candidates: Candidate[];
  sweeps: CampaignSweep[];
  scopeSize: number;
  keptKeys: { key: string; records: number }[];
}> => {
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
  const scopeSize = sweeps.reduce((n, s) => n + s.records.length, 0);
  const keptKeys = [...kept]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, records]) => ({ key, records }));
  return { candidates, sweeps, scopeSize: Math.max(scopeSize, rows.length), keptKeys };
};

type UsersSnapshot = Extract<Snapshot, { kind: 'users' }>;

/** What the platform and the ledger say of one user a users plan considers. */
interface UserFacts {
  readonly existence: { readonly exists: boolean; readonly cloudConnectStatus?: unknown };
  /** The ledger shows this integration created the user (asked only of users that exist). */
  readonly ours: boolean;
}

/**
 * The users a plan considers: its rows, and beyond them only the users the scope covers: its
 * rule's, or without a rule the ones its previous roster named. Another roster's users, and
 * users a live event made that no rule of its matches, are not its to judge.
 */
const usersConsidered = async (snapshot: UsersSnapshot, inputs: PlanInputs): Promise<string[]> => {
  const { scope, rows } = snapshot;
  const ids = new Set(rows.map((row) => row.loginUserId));
  const covered = (id: string) =>
    scope.covers === undefined || userCoverage(scope.covers, { loginUserId: id }) !== 'no';
  if (inputs.previous?.keys) {
    for await (const id of inputs.previous.keys()) if (covered(id)) ids.add(id);
  }
  if (scope.covers !== undefined) {
    for await (const id of inputs.ledger.createdUsers()) if (covered(id)) ids.add(id);
  }
  return [...ids];
};

/** The repair of a user: its row's correlation id, or the entity's for a user beyond the rows. */
const userCorrelation = (snapshot: UsersSnapshot, entity: string, line: number | undefined) =>
  line === undefined ? entityCorrelation(snapshot, entity) : rowCorrelation(snapshot, line);

/**
 * A delete of the user; named OWNER_AMBIGUOUS with the scopes that may own it when this scope
 * alone does not (deleteGate then holds every delete for a person).
 */
const userDelete = (
  snapshot: UsersSnapshot,
  inputs: PlanInputs,
  id: string,
  row: UserRow | undefined,
  reason?: EntryReason,
): PlanEntry => {
  const entity = userEntity(id);
  const line = row?.line;
  const owners = ambiguousOwners(snapshot.scope, inputs, id, row);
  return {
    entity,
    ...(line === undefined ? {} : { line }),
    category: 'delete',
    ...(owners !== undefined
      ? { reason: OWNER_AMBIGUOUS, scopes: owners }
      : reason === undefined
        ? {}
        : { reason }),
    repair: {
      action: 'delete-user',
      message: {
        loginUserId: id,
        correlationId: userCorrelation(snapshot, entity, line),
        occurredAt: snapshot.manifest.exportedAt,
      },
    },
  };
};

/**
 * An active row: a create when the user does not exist; a conflict when it exists but is not
 * ours, or is not in the contact-center instance the row asks for; else in sync.
 */
const activeRowEntry = (
  snapshot: UsersSnapshot,
  row: UserRow,
  message: NonNullable<UserRow['message']>,
  { existence, ours }: UserFacts,
): PlanEntry => {
  const entity = userEntity(row.loginUserId);
  const line = row.line;
  if (!existence.exists) {
    return {
      entity,
      line,
      category: 'create',
      repair: {
        action: 'add-user',
        message: {
          ...message,
          correlationId: rowCorrelation(snapshot, line),
          occurredAt: snapshot.manifest.exportedAt,
        },
      },
    };
  }
  if (!ours) return { entity, line, category: 'conflict', reason: 'USER_EXISTS_NOT_OURS' };
  if (
    message.createInCloudConnect === true &&
    'cloudConnectStatus' in existence &&
    existence.cloudConnectStatus !== 'EXISTS'
  ) {
    return { entity, line, category: 'conflict', reason: 'NOT_IN_CONTACT_CENTER_INSTANCE' };
  }
  return { entity, line, category: 'in-sync' };
};

/**
 * A user without an active row (a leaver's row, or none). Gone: in sync for a row, nothing
 * otherwise. Beyond the rows where absence is not leaving: skipped if ours, else unmanaged.
 * Leaving: a delete if ours (or the scope deletes what is not), else unmanaged.
 */
const leavingUserEntry = (
  snapshot: UsersSnapshot,
  inputs: PlanInputs,
  id: string,
  row: UserRow | undefined,
  { existence, ours }: UserFacts,
): PlanEntry | undefined => {
  const { scope } = snapshot;
  const entity = userEntity(id);
  const at = row === undefined ? {} : { line: row.line };
  // A leaver already gone, or an old candidate that is gone: nothing to do.
  if (!existence.exists)
    return row === undefined ? undefined : { entity, ...at, category: 'in-sync' };
  const leaves = row !== undefined || scope.absentMeansLeave;
  if (!leaves) {
    return ours
      ? { entity, category: 'skipped', reason: 'ABSENT_NOT_LEAVE' }
      : { entity, category: 'unmanaged', reason: 'NOT_IN_EXPORT' };
  }
  if (ours) return userDelete(snapshot, inputs, id, row);
  if (scope.deleteUnmanaged)
    return userDelete(snapshot, inputs, id, row, 'UNMANAGED_DELETE_ALLOWED');
  return {
    entity,
    ...at,
    category: 'unmanaged',
    reason: row?.leaver ? 'LEAVER_NOT_CREATED_BY_US' : 'NOT_CREATED_BY_US',
  };
};

/**
 * A users scope: find the users it considers, ask the platform whether each exists and the
 * ledger whether each is ours, then the entry of each: an active row's, or a leaving user's.
 */
const planUsers = async (
  snapshot: UsersSnapshot,
  inputs: PlanInputs,
): Promise<{ candidates: Candidate[]; checked: number; scopeSize: number }> => {
  const { rows } = snapshot;
  const byId = new Map<string, UserRow>(rows.map((row) => [row.loginUserId, row]));
  const all = await usersConsidered(snapshot, inputs);
  const found = await mapLimit(all, inputs.concurrency ?? 4, async (id): Promise<UserFacts> => {
    const existence = await inputs.reader.userExists(id);
    const ours = existence.exists
      ? await inputs.ledger.createdByUs({ kind: 'user', loginUserId: id })
      : false;
    return { existence, ours };
  });
  const candidates = all.flatMap((id, index): Candidate[] => {
    const facts = found[index] ?? { existence: { exists: false }, ours: false };
    const row = byId.get(id);
    const entry =
      row !== undefined && !row.leaver && row.message !== undefined
        ? activeRowEntry(snapshot, row, row.message, facts)
        : leavingUserEntry(snapshot, inputs, id, row, facts);
    return entry === undefined ? [] : [{ ref: { kind: 'user', loginUserId: id }, entry }];
  });
  const existing = found.filter((f) => f.existence.exists).length;
  return { candidates, checked: all.length, scopeSize: Math.max(rows.length, existing) };
};

/**
 * The scopes a user this scope would delete may belong to, when that is not this scope alone
 * (undefined: it is): another scope's rule matches it or may (a template no row shows), or this
 * scope's own rule may not (a user beyond its rows). A scope without a rule claims only its own
 * rows, which another plan cannot see: it is never named for another's user.
 */
const ambiguousOwners = (
  scope: UsersScope,
  inputs: PlanInputs,
  loginUserId: string,
  row: UserRow | undefined,
): string[] | undefined => {
  const known = { loginUserId, userTemplateName: row?.userTemplateName };
  const others = Object.values(inputs.scopes ?? {}).flatMap((other) =>
    other.kind === 'users' &&
    other.name !== scope.name &&
    other.covers !== undefined &&
    userCoverage(other.covers, known) !== 'no'
      ? [other.name]
      : [],
  );
  const undecided =
    row === undefined && scope.covers !== undefined && userCoverage(scope.covers, known) !== 'yes';
  return others.length > 0 || undecided ? [scope.name, ...others.sort()] : undefined;
};

/** A live event newer than the export already decided the entity: the export does not repair it. */
const skipNewer = async (
  candidates: readonly Candidate[],
  inputs: PlanInputs,
  exportedAt: number,
): Promise<PlanEntry[]> =>
  mapLimit(candidates, inputs.concurrency ?? 4, async ({ entry, ref }) => {
    if (!CHANGES.includes(entry.category)) return entry;
    const newest = await inputs.ledger.newestEventAt(ref);
    if (newest === undefined || newest <= exportedAt) return entry;
    const { repair: _r, fields: _f, ...rest } = entry;
    return { ...rest, category: 'skipped', reason: 'NEWER_EVENT' };
  });

/**
 * The reason of an update left unsent: an item it would keep (a key no row of the export
 * carries) is one the message contract refuses.
 */
export const KEPT_ITEM_UNSENDABLE: Extract<EntryReason, 'KEPT_ITEM_UNSENDABLE'> =
  'KEPT_ITEM_UNSENDABLE';

/** The reason of a delete whose record an agent has worked (`workAttempts` > 0). */
export const WORKED_BY_AGENT: Extract<EntryReason, 'WORKED_BY_AGENT'> = 'WORKED_BY_AGENT';

/** The reason of a delete of a user another scope covers or may cover (the entry names them). */
export const OWNER_AMBIGUOUS: Extract<EntryReason, 'OWNER_AMBIGUOUS'> = 'OWNER_AMBIGUOUS';

const ofTheDeletes = (n: number) => `${n} of the deletes ${n === 1 ? 'is' : 'are'}`;

/**
 * Why the deletes wait when `worked` of them are WORKED_BY_AGENT: one text whether the plan saw
 * the attempts or the stack's auto-apply found them when it searched again.
 */
export const workedHoldReason = (worked: number): string =>
  `${ofTheDeletes(worked)} of ${worked === 1 ? 'a record' : 'records'} agents have worked (their attempts and work codes go with them)`;

/** Why the deletes wait when some are OWNER_AMBIGUOUS: the first one and its scopes named. */
export const ambiguousHoldReason = (ambiguous: readonly PlanEntry[]): string => {
  const [first] = ambiguous;
  const n = ambiguous.length;
  return `${ofTheDeletes(n)} of ${n === 1 ? 'a user whose scope' : 'users whose scopes'} cannot be decided, never guessed (${first?.entity}: scopes ${first?.scopes?.join(', ')}${n > 1 ? '; the rest in the report' : ''})`;
};

/**
 * Whether the deletes may go with the rest, or wait whole for a person to name their count:
 * more than the gate, an export that shrank, or any delete of a record an agent has worked.
 */
export const deleteGate = (
  snapshot: Snapshot,
  count: number,
  scopeSize: number,
  previous: PreviousSnapshot | undefined,
  worked = 0,
  ambiguous: readonly PlanEntry[] = [],
): Plan['deletes'] => {
  const { deleteGate: gate, shrinkGuardPercent } = snapshot.scope;
  const limit = Math.max(gate.count, Math.floor((gate.percent / 100) * scopeSize));
  const heldBecause: string[] = [];
  if (count > limit) {
    heldBecause.push(
      `${count} deletes exceed the gate max(${gate.count}, ${gate.percent} % of ${scopeSize}) = ${limit}`,
    );
  }
  const rows = snapshot.manifest.rowCount;
  if (previous !== undefined && rows < previous.rowCount * (1 - shrinkGuardPercent / 100)) {
    heldBecause.push(
      `the export has ${rows} rows, the previous snapshot ${previous.rowCount}: it shrank by more than ${shrinkGuardPercent} %`,
    );
  }
  if (worked > 0) heldBecause.push(workedHoldReason(worked));
  if (ambiguous.length > 0) heldBecause.push(ambiguousHoldReason(ambiguous));
  return {
    count,
    gate: limit,
    scopeSize,
    held: count > 0 && heldBecause.length > 0,
    heldBecause: count > 0 ? heldBecause : [],
  };
};

const ORDER = new Map(CATEGORIES.map((c, i) => [c, i]));

export const buildPlan = async (inputs: PlanInputs): Promise<Plan> => {
  const { snapshot } = inputs;
  const exportedAt = Date.parse(snapshot.manifest.exportedAt);
  const built =
    snapshot.kind === 'records'
      ? await planRecords(snapshot, inputs)
      : await planUsers(snapshot, inputs);
  const entries = (await skipNewer(built.candidates, inputs, exportedAt)).sort(
    (a, b) =>
      (ORDER.get(a.category) ?? 0) - (ORDER.get(b.category) ?? 0) ||
      (a.entity < b.entity ? -1 : a.entity > b.entity ? 1 : 0),
  );
  const counts = Object.fromEntries(
    CATEGORIES.map((c) => [c, entries.filter((e) => e.category === c).length]),
  ) as Record<Category, number>;
  const createdAt = new Date(inputs.now).toISOString();
  const { manifest } = snapshot;
  return {
    version: 1,
    planId: `${snapshot.scope.name}-${snapshot.id}-${createdAt.replace(/[-:.]/g, '')}`,
    createdAt,
    scope: snapshot.scope.name,
    kind: snapshot.kind,
    snapshot: {
      id: snapshot.id,
      file: manifest.file,
      exportedAt: manifest.exportedAt,
      rowCount: manifest.rowCount,
      sha256: manifest.sha256,
    },
    ...(inputs.previous === undefined
      ? {}
      : {
          previous: {
            exportedAt: inputs.previous.exportedAt,
            rowCount: inputs.previous.rowCount,
            sha256: inputs.previous.sha256,
          },
        }),
    counts,
    deletes: deleteGate(
      snapshot,
      counts.delete,
      built.scopeSize,
      inputs.previous,
      entries.filter((e) => e.category === 'delete' && e.reason === WORKED_BY_AGENT).length,
      entries.filter((e) => e.category === 'delete' && e.reason === OWNER_AMBIGUOUS),
    ),
    ...('sweeps' in built
      ? {
          sweeps: built.sweeps.map(({ records: _r, ...sweep }) => ({
            ...sweep,
            records: _r.length,
          })),
          ...(built.keptKeys.length > 0 ? { keptKeys: built.keptKeys } : {}),
        }
      : {
          candidates: {
            checked: built.checked,
            outOfReach:
              snapshot.kind === 'users' && snapshot.scope.covers === undefined
                ? "users this integration never knew (not in this export or the previous snapshot) cannot be found: the platform has no list call; the ledger's other users are not this scope's to judge (it has no covers rule)"
                : 'users this integration never knew (not in this export, the previous snapshot or the ledger) cannot be found: the platform has no list call',
          },
        }),
    platformReads: inputs.reader.calls,
    entries,
  };
};

/** True when applying the plan would change the platform. */
export const hasChanges = (plan: Pick<Plan, 'counts'>): boolean =>
  CHANGES.some((category) => plan.counts[category] > 0);
