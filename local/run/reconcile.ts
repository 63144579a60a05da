/**
 * `npm start -- --reconcile`: reconciliation end to end on this machine. The integration's own
 * events and some hand work on the platform leave drift; snapshot exports are planned against
 * the simulator over its socket (the same planner as `npm run ops -- reconcile plan`); the
 * plan's repairs go through the bulk sender's checkpointed delivery onto the bus and are drained
 * by the real handlers; a second plan must find no changes.
 */

import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LedgerStore } from '../../lambdas/core/ledger/ledger-store';
import {
  checkApplicable,
  DEFAULT_PLAN_MAX_AGE_HOURS,
  recheckDeletes,
  repairsByAction,
} from '../../lambdas/reconcile/apply-check';
import { CHANGES, REPAIR_ORDER } from '../../lambdas/reconcile/categories';
import { decodeExport } from '../../lambdas/reconcile/export-decoder';
import { InMemoryRunHistory } from '../../lambdas/reconcile/in-memory-run-history';
import { type LedgerItems, LedgerItemView } from '../../lambdas/reconcile/ledger-item-view';
import type { LedgerView } from '../../lambdas/reconcile/ledger-view';
import { hasChanges, type Plan } from '../../lambdas/reconcile/plan';
import { planNext, recordPlan } from '../../lambdas/reconcile/plan-record';
import { summarizePlan } from '../../lambdas/reconcile/plan-summary';
import { planSnapshot } from '../../lambdas/reconcile/planner';
import type { RunHistory } from '../../lambdas/reconcile/run-history';
import { parseScopes, type ReconcileScope } from '../../lambdas/reconcile/scope';
import { counted } from '../../ops/counted';
import { sendRepairs } from '../../ops/reconcile/repair-sender';
import { localPlatformReader } from '../../testkit';
import type { Backend } from '../backends';
import { type BackendKind, createBackend } from '../backends';
import { type RunningSimulator, startSimulator } from '../simulator';
import type { InputEvent, Scenario } from './event-input';
import { type RunObserver, type RunResult, runPipeline } from './pipeline';
import type { ProgressWriter } from './preparation-progress';
import { startPreparationProgress } from './preparation-progress';
import {
  BIG_CAMPAIGN,
  type ExportFile,
  exportsNow,
  seedByHand,
  seedScenario,
} from './reconcile-drift';
import { formatSummary, type Style } from './report';
import { EXIT, exampleRunSettings } from './run';
import { fileLogSink, type LogSink } from './run-logger';
import { type RunSettings, runPlatformOf, runSimulatorOptions } from './run-settings';

/** Everything a local plan needs: the simulator, the backend's ledger, the run history. */
export interface LocalPlatform {
  readonly simulator: RunningSimulator;
  readonly settings: RunSettings;
  readonly apiKey: string;
  readonly ledger: LedgerStore;
  /** The same ledger's items, as the planner reads them. */
  readonly ledgerItems: LedgerItems;
  readonly history: RunHistory;
  readonly scopes: Readonly<Record<string, ReconcileScope>>;
  readonly folder: string;
  /** The ledger as the planner sees it. @default the item view over `ledgerItems` */
  readonly ledgerView?: (scope: ReconcileScope) => LedgerView;
}

/** A local platform on a started backend, with a run history of its own (in memory). */
export const localPlatformOn = <
  T extends Omit<LocalPlatform, 'ledger' | 'ledgerItems' | 'history'> & {
    readonly backend: Backend;
  },
>(
  parts: T,
): T & LocalPlatform => ({
  ...parts,
  ledger: parts.backend.ledger,
  ledgerItems: parts.backend.ledgerItems,
  history: new InMemoryRunHistory(),
});

/**
 * The drift the local run and its tests start from: the integration's own events through the
 * handlers, hand work on the platform, and the exports (with their manifests) written to `folder`.
 */
export const seedDrift = async (local: {
  readonly settings: RunSettings;
  readonly backend: Backend;
  readonly simulator: RunningSimulator;
  readonly logSink: LogSink;
  readonly folder: string;
}) => {
  const { settings, backend, simulator, logSink, folder } = local;
  const seeded = await runPipeline({
    scenario: seedScenario(),
    settings,
    backend,
    simulator,
    logSink,
    faults: false,
  });
  const byHand = seedByHand(simulator);
  const exports = exportsNow();
  for (const file of exports) {
    await writeFile(path.join(folder, file.name), file.text, { mode: 0o600 });
    await writeFile(path.join(folder, file.manifestName), file.manifest);
  }
  return { seeded, byHand, exports };
};

/** The simulator read as reconciliation reads the platform. */
const readerOf = (local: LocalPlatform) =>
  localPlatformReader({
    ...runPlatformOf(local.settings),
    baseUrl: local.simulator.baseUrl,
    apiKey: local.apiKey,
  });

/** Plans one manifest of `folder` against the simulator, as `reconcile plan` does. */
export const planLocally = async (local: LocalPlatform, manifestName: string, now = Date.now()) => {
  const manifestPath = path.join(local.folder, manifestName);
  const { settings } = local;
  const run = await planSnapshot({
    manifestText: await readFile(manifestPath, 'utf8'),
    manifestWhere: manifestName,
    readExport: (file) => readFile(path.join(local.folder, file)),
    decode: decodeExport,
    scopes: local.scopes,
    campaignRegion: settings.campaignRegion,
    reader: () => readerOf(local),
    ledger: local.ledgerView ?? (() => new LedgerItemView({ items: local.ledgerItems })),
    history: local.history,
    readPlan: (location) => readFile(location, 'utf8'),
    now,
  });
  const planPath = path.join(local.folder, `${run.plan.scope}.plan.jsonl`);
  const reportPath = path.join(local.folder, `${run.plan.scope}.report.jsonl`);
  // Kept as `reconcile plan` keeps it; the run applies it itself, as an operator would.
  await recordPlan(
    run,
    planNext(run.plan, false),
    {
      planLocation: planPath,
      reportLocation: reportPath,
      write: (file, text) =>
        writeFile(file === 'plan' ? planPath : reportPath, text, { mode: 0o600 }),
    },
    local.history,
  );
  return { ...run, planPath };
};

/**
 * Applies a plan as `reconcile apply` does, but onto the local bus: each action's repairs go
 * through the bulk sender's checkpointed delivery (files beside the plan), the real handlers
 * drain them, and the scope notes the snapshot as applied.
 */
export const applyLocally = async (
  local: LocalPlatform & { readonly backend: Backend; readonly logSink: LogSink },
  plan: Plan,
  planPath: string,
  options: {
    readonly allowDeletes?: number;
    readonly observer?: RunObserver;
    readonly now?: number;
  } = {},
): Promise<RunResult> => {
  const now = options.now ?? Date.now();
  const checked = checkApplicable(plan, {
    now,
    maxAgeHours: DEFAULT_PLAN_MAX_AGE_HOURS,
    state: await local.history.scope(plan.scope),
    allowDeletes: options.allowDeletes,
  });
  const decision = await recheckDeletes(plan, checked, () => readerOf(local));
  const repairs = repairsByAction(plan, decision);
  const phases = REPAIR_ORDER.flatMap((action) => {
    const messages = repairs.get(action) ?? [];
    if (messages.length === 0) return [];
    const source = local.settings.actions[action].allowedSources[0] ?? 'reconcile';
    const file = `repairs: ${action}`;
    const events = messages.map(
      (detail, index): InputEvent => ({
        file,
        index,
        format: 'eventbridge',
        source,
        detailType: action,
        detail,
        envelope: {},
      }),
    );
    return [{ file, events }];
  });
  const scenario: Scenario = {
    origin: planPath,
    phases,
    seed: { users: [] },
    expectations: undefined,
  };
  const result = await runPipeline({
    scenario,
    settings: local.settings,
    backend: local.backend,
    simulator: local.simulator,
    logSink: local.logSink,
    faults: false,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
    deliver: async (events) => {
      const action = REPAIR_ORDER.find((a) => a === events[0]?.['detail-type']);
      if (action === undefined) return local.backend.putEvents(events);
      // The bus names each event (EventBridge assigns its id): the run follows them by it.
      const ids: string[] = events.map((e) => e.id);
      await sendRepairs({
        action,
        messages: events.map((e) => e.detail as Record<string, unknown>),
        file: `${planPath}.${action}.jsonl`,
        exportedAt: plan.snapshot.exportedAt,
        target: {
          name: 'local bus',
          send: async (entries) => {
            const sent = await local.backend.putEvents(
              entries.flatMap((entry) => events[entry.id] ?? []),
            );
            entries.forEach((entry, index) => {
              ids[entry.id] = sent[index] ?? ids[entry.id] ?? '';
            });
            return [];
          },
        },
        parallel: 4,
      });
      return ids;
    },
  });
  if (decision.heldDeletes === 0) {
    await local.history.noteApplied(
      plan.scope,
      {
        exportedAt: plan.snapshot.exportedAt,
        rowCount: plan.snapshot.rowCount,
        sha256: plan.snapshot.sha256,
        planLocation: planPath,
      },
      { at: new Date(now).toISOString(), approvedBy: 'npm start' },
    );
  }
  return result;
};

/** The entities a plan would change: `<entity>` → category. */
const changesOf = (plan: Plan): Map<string, string> =>
  new Map(
    plan.entries.filter((e) => CHANGES.includes(e.category)).map((e) => [e.entity, e.category]),
  );

export interface ReconcileRunOptions {
  readonly root: string;
  readonly backend?: BackendKind;
  readonly out: (line: string) => void;
  readonly progressOut: ProgressWriter;
  readonly style: Style;
}

export const executeReconcileRun = async (options: ReconcileRunOptions): Promise<number> => {
  const { root, out, style } = options;
  const kind = options.backend ?? 'in-memory';
  const configFile = path.join(root, 'config', 'example.json');
  const settings = exampleRunSettings(root, kind);
  const raw = JSON.parse(await readFile(configFile, 'utf8')) as {
    reconcile?: { scopes?: unknown };
  };
  const scopes = parseScopes(raw.reconcile?.scopes ?? {});
  if (!scopes.success) throw new Error(`config/example.json: reconcile.scopes: ${scopes.error}`);
  const folder = path.join(root, '.tools', 'reconcile-run');
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });

  const apiKey = randomBytes(24).toString('base64url');
  const simulator = await startSimulator(runSimulatorOptions(settings, apiKey));
  let backend: Backend | undefined;
  let logSink: LogSink | undefined;
  try {
    const progress =
      kind === 'aws-emulator'
        ? startPreparationProgress(options.progressOut, 'Preparing the AWS emulator (moto server)…')
        : undefined;
    try {
      backend = await createBackend(kind, { settings, apiKey, ...(progress ? { progress } : {}) });
    } finally {
      progress?.finish();
    }
    logSink = fileLogSink(path.join(root, '.tools', 'local-run.log'));
    const local = localPlatformOn({
      simulator,
      settings,
      apiKey,
      scopes: scopes.scopes,
      folder,
      backend,
      logSink,
    });
    out(style.bold('contact-center-sync: reconciliation on this machine'));
    out(`  platform  simulator ${simulator.baseUrl} (both services)`);
    out(`  queues    ${backend.description}`);
    out(
      `  scopes    config/example.json reconcile.scopes: ${Object.keys(scopes.scopes).join(', ')}`,
    );
    out('');
    out(style.bold('Drift'));
    const { seeded, byHand, exports } = await seedDrift(local);
    const applied = seeded.fates.filter((f) => f.kind === 'applied').length;
    out(
      `  through the handlers: ${counted(applied, 'event')} of the integration's own (2 users, 4 records), 1 a live update after the export`,
    );
    for (const line of byHand) out(`  by hand on the platform: ${line}`);
    out(
      `  exports: ${exports.map((f: ExportFile) => path.relative(root, path.join(folder, f.manifestName))).join(', ')}`,
    );

    const firstPlans: { plan: Plan; planPath: string }[] = [];
    out('');
    out(style.bold('Plan (npm run ops -- reconcile plan <manifest>)'));
    for (const file of exports) {
      const run = await planLocally(local, file.manifestName);
      firstPlans.push(run);
      for (const line of summarizePlan(run.plan)) out(`  ${line}`);
      out('');
    }

    out(
      style.bold(
        'Apply (npm run ops -- reconcile apply <plan>): bulk sender → bus → queues → the real handlers',
      ),
    );
    const fates: RunResult['fates'][number][] = [];
    for (const { plan, planPath } of firstPlans) {
      if (!hasChanges(plan)) continue;
      const result = await applyLocally(local, plan, planPath, {
        ...(plan.deletes.held ? { allowDeletes: plan.deletes.count } : {}),
      });
      fates.push(...result.fates);
    }
    for (const line of formatSummary(fates, 0, style)) out(`  ${line}`);
    out('');

    out(style.bold('Plan again, after the repairs drained'));
    let wanted = 0;
    let repaired = 0;
    let clean = true;
    for (const [index, file] of exports.entries()) {
      const before = changesOf(firstPlans[index]?.plan as Plan);
      const run = await planLocally(local, file.manifestName);
      const after = changesOf(run.plan);
      wanted += before.size;
      repaired += [...before.keys()].filter((entity) => !after.has(entity)).length;
      clean &&= !hasChanges(run.plan);
      for (const line of summarizePlan(run.plan)) out(`  ${line}`);
      out('');
    }
    const bigSweep = firstPlans
      .flatMap((p) => p.plan.sweeps ?? [])
      .find((s) => s.campaignName === BIG_CAMPAIGN);
    if (bigSweep !== undefined) {
      out(
        `  ${BIG_CAMPAIGN}: ${bigSweep.records} records read in ${bigSweep.searches} searches of at most 1000 (split on ${bigSweep.splitOn.join(', ')}), ${bigSweep.complete ? 'shown complete' : 'NOT shown complete'}`,
      );
    }
    const lost = fates.filter((f) => f.kind !== 'applied').length;
    const line = `drift repaired: ${repaired}/${wanted}`;
    out(repaired === wanted ? style.good(line) : style.bad(line));
    const ok = repaired === wanted && clean && lost === 0;
    out(
      ok
        ? style.good('Result: OK (the second plan has no changes)')
        : style.bad(
            `Result: FAILED (${clean ? '' : 'the second plan still has changes; '}${lost} repairs not applied)`,
          ),
    );
    out(
      style.dim(
        `Plans, reports and repair files: ${path.relative(root, folder)}/; handler logs: .tools/local-run.log`,
      ),
    );
    return ok ? EXIT.ok : EXIT.failed;
  } finally {
    logSink?.close();
    await backend?.close();
    await simulator.close();
  }
};
