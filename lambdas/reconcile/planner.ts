/**
 * One plan from one manifest, the same way wherever it runs (the ops CLI, the stack's run, the
 * local run): read and verify the snapshot, refuse one older than what the scope already
 * applied, read the platform and the ledger, and note the snapshot in the run history.
 */
import { LedgerDocError } from '../core/ledger/ledger-doc';
import type { PlatformRegion } from '../core/platform/regions';
import type { LedgerView } from './ledger-view';
import { type Manifest, parseManifest, SnapshotRefused } from './manifest';
import { buildPlan, type Plan, type PreviousSnapshot } from './plan';
import { PlanFileError, parsePlan } from './plan-file';
import type { PlatformReader } from './platform-reader';
import type { RefusalCode } from './reconcile-codes';
import type { RunHistory, ScopeState } from './run-history';
import type { ReconcileScope } from './scope';
import { type ExportDecoder, type Snapshot, verifySnapshot } from './snapshot';

export interface PlanRunInputs {
  readonly manifestText: string;
  /** How the manifest is named in messages (its path or URI). */
  readonly manifestWhere: string;
  /** The export the manifest names, by its `file` (beside the manifest). */
  readonly readExport: (file: string) => Promise<Uint8Array>;
  readonly decode: ExportDecoder;
  readonly scopes: Readonly<Record<string, ReconcileScope>>;
  readonly campaignRegion: PlatformRegion;
  /** The platform's reads for the snapshot's kind (records: realtime, users: provisioning). */
  readonly reader: (kind: ReconcileScope['kind']) => PlatformReader;
  /** The ledger, seen through the port; told the scope (today's format needs its campaigns). */
  readonly ledger: (scope: ReconcileScope) => LedgerView;
  readonly history: RunHistory;
  /** A plan file by its location (the previous snapshot's users are read from its plan). */
  readonly readPlan: (location: string) => Promise<string>;
  readonly now: number;
  readonly concurrency?: number;
}

export interface PlanRun {
  readonly plan: Plan;
  readonly snapshot: Snapshot;
  readonly state: ScopeState;
  /** What the plan could not use, e.g. the previous snapshot's plan file is gone. */
  readonly warnings: readonly string[];
}

const previousOf = (
  state: ScopeState,
  readPlan: PlanRunInputs['readPlan'],
  warnings: string[],
): PreviousSnapshot | undefined => {
  const applied = state.applied;
  if (applied === undefined) return undefined;
  const location = applied.planLocation;
  return {
    exportedAt: applied.exportedAt,
    rowCount: applied.rowCount,
    sha256: applied.sha256,
    ...(location === undefined
      ? {}
      : {
          keys: async function* () {
            const unreadable = (error: unknown) =>
              warnings.push(
                `the previous snapshot's plan ${location} cannot be read (${(error as Error).message}): its users are not candidates`,
              );
            let text: string;
            try {
              text = await readPlan(location);
            } catch (error) {
              unreadable(error);
              return;
            }
            let entries: Plan['entries'];
            try {
              entries = parsePlan(text, location).entries;
            } catch (error) {
              // Edited since it was applied (its header no longer counts its entries, say): it
              // cannot say which users the scope had, as a plan that is gone cannot.
              if (!(error instanceof PlanFileError)) throw error;
              unreadable(error);
              return;
            }
            for (const entry of entries) {
              if (entry.line !== undefined && entry.entity.startsWith('user:')) {
                yield entry.entity.slice('user:'.length);
              }
            }
          },
        }),
  };
};

/** Refuses a snapshot the scope already moved past: planning it could undo newer repairs. */
const refuseOlder = (manifest: Manifest, state: ScopeState): void => {
  const applied = state.applied;
  if (applied === undefined) return;
  if (
    manifest.exportedAt < applied.exportedAt ||
    (manifest.exportedAt === applied.exportedAt && manifest.sha256 !== applied.sha256)
  ) {
    throw new SnapshotRefused(
      'SUPERSEDED',
      `scope ${manifest.scope} already applied a snapshot exported ${applied.exportedAt}; this one (${manifest.exportedAt}) is not newer`,
    );
  }
};

/** The scope a manifest names, when it can be read at all: a refusal is noted under it. */
export const scopeNamed = (manifestText: string): string | undefined => {
  try {
    const scope = (JSON.parse(manifestText) as { scope?: unknown }).scope;
    return typeof scope === 'string' && scope !== '' ? scope : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Notes a refused snapshot in the run history (under the scope its manifest names, if any), so
 * an operator finds the refusal where the runs are. Its code and message are copied: a refusal
 * error's own message does not serialize, and the run item must parse when read back.
 */
export const noteRefusal = async (
  history: RunHistory,
  manifestText: string,
  refusal: { readonly code: RefusalCode; readonly message: string },
  at: string,
): Promise<string> => {
  const scope = scopeNamed(manifestText) ?? 'unknown';
  await history.record({
    runId: `refused-${at.replace(/[-:.]/g, '')}`,
    scope,
    status: 'refused',
    at,
    refusal: { code: refusal.code, message: refusal.message },
  });
  return scope;
};

export const planSnapshot = async (inputs: PlanRunInputs): Promise<PlanRun> => {
  const manifest = parseManifest(inputs.manifestText, inputs.manifestWhere);
  const scope = inputs.scopes[manifest.scope];
  if (scope === undefined) {
    const known = Object.keys(inputs.scopes);
    throw new SnapshotRefused(
      'UNKNOWN_SCOPE',
      `${inputs.manifestWhere}: scope: "${manifest.scope}" is not a scope of this deployment (${known.length === 0 ? 'none is configured: reconcile.scopes' : `configured: ${known.join(', ')}`})`,
    );
  }
  const state = await inputs.history.scope(scope.name);
  refuseOlder(manifest, state);
  let bytes: Uint8Array;
  try {
    bytes = await inputs.readExport(manifest.file);
  } catch (error) {
    throw new SnapshotRefused(
      'EXPORT_MISSING',
      `${inputs.manifestWhere}: file: ${manifest.file} cannot be read (${(error as Error).message})`,
    );
  }
  const snapshot = verifySnapshot({
    manifest,
    scope,
    bytes,
    decode: inputs.decode,
    campaignRegion: inputs.campaignRegion,
    now: inputs.now,
  });
  const warnings: string[] = [];
  let plan: Plan;
  try {
    plan = await buildPlan({
      snapshot,
      reader: inputs.reader(scope.kind),
      ledger: inputs.ledger(scope),
      previous: previousOf(state, inputs.readPlan, warnings),
      now: inputs.now,
      scopes: inputs.scopes,
      ...(inputs.concurrency === undefined ? {} : { concurrency: inputs.concurrency }),
    });
  } catch (error) {
    // A refusal like any other, so that it is noted where the runs are.
    if (error instanceof LedgerDocError) throw new SnapshotRefused(error.code, error.message);
    throw error;
  }
  return { plan, snapshot, state, warnings };
};
