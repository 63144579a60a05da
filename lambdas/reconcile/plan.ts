/**
 * The plan: every entity of the scope in one category, with the repair message of each change,
 * and the delete gates applied. Built from a verified snapshot, what the platform holds, and
 * what the ledger knows; nothing here changes anything. Here: the plan's shape (its categories,
 * their repairs and its entries are categories.ts), and `buildPlan`, which assembles a scope's
 * part (plan-records.ts, plan-users.ts), the newer-event skip, the order, the counts and the
 * delete gate (delete-gate.ts).
 */
import { mapLimit } from '../core/entry/concurrency';
import { CATEGORIES, type Category, CHANGES, type PlanEntry, type ScopeKind } from './categories';
import { gateOfEntries } from './delete-gate';
import type { LedgerView } from './ledger-view';
import { planRecords } from './plan-records';
import { planUsers } from './plan-users';
import type { PlatformReader } from './platform-reader';
import type { CampaignSweep } from './record-sweep';
import type { ReconcileScope } from './scope';
import type { Snapshot } from './snapshot';

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
  readonly kind: ScopeKind;
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

/** An entry before the newer-event skip, with the entity as the ledger names it. */
export interface Candidate {
  readonly entry: PlanEntry;
  readonly ref: Parameters<LedgerView['newestEventAt']>[0];
}

/**
 * A scope's part of the plan (plan-records.ts, plan-users.ts): its entries before the
 * newer-event skip, the scope's size for the delete gate, and what only its kind reports.
 */
export interface PlanPart {
  readonly candidates: readonly Candidate[];
  readonly scopeSize: number;
  readonly facts: Pick<Plan, 'sweeps' | 'keptKeys' | 'candidates'>;
}

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

const ORDER = new Map(CATEGORIES.map((c, i) => [c, i]));

/** The entries by category, in the table's order, then by entity. */
const inOrder = (entries: PlanEntry[]): PlanEntry[] =>
  entries.sort(
    (a, b) =>
      (ORDER.get(a.category) ?? 0) - (ORDER.get(b.category) ?? 0) ||
      (a.entity < b.entity ? -1 : a.entity > b.entity ? 1 : 0),
  );

const countsOf = (entries: readonly PlanEntry[]): Record<Category, number> =>
  Object.fromEntries(
    CATEGORIES.map((c) => [c, entries.filter((e) => e.category === c).length]),
  ) as Record<Category, number>;

/** The plan's header: its id and time, its scope, its snapshot and the one before. */
const headerOf = ({ snapshot, now, previous }: PlanInputs) => {
  const createdAt = new Date(now).toISOString();
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
    ...(previous === undefined
      ? {}
      : {
          previous: {
            exportedAt: previous.exportedAt,
            rowCount: previous.rowCount,
            sha256: previous.sha256,
          },
        }),
  } as const satisfies Partial<Plan>;
};

/**
 * The plan: the scope's part (records or users), the newer-event skip, the entries in order and
 * counted, and the delete gate over them.
 */
export const buildPlan = async (inputs: PlanInputs): Promise<Plan> => {
  const { snapshot } = inputs;
  const part =
    snapshot.kind === 'records'
      ? await planRecords(snapshot, inputs)
      : await planUsers(snapshot, inputs);
  const exportedAt = Date.parse(snapshot.manifest.exportedAt);
  const entries = inOrder(await skipNewer(part.candidates, inputs, exportedAt));
  return {
    ...headerOf(inputs),
    counts: countsOf(entries),
    deletes: gateOfEntries(snapshot, entries, part.scopeSize, inputs.previous),
    ...part.facts,
    platformReads: inputs.reader.calls,
    entries,
  };
};

/** True when applying the plan would change the platform. */
export const hasChanges = (plan: Pick<Plan, 'counts'>): boolean =>
  CHANGES.some((category) => plan.counts[category] > 0);
