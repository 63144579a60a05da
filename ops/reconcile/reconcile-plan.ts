/**
 * `reconcile plan <manifest>`: compares a snapshot export with what the platform holds within
 * its scope and writes the plan (and a report without data values) without changing anything.
 * Exit codes as Terraform's detailed ones: 0 no changes, 2 changes, 1 error or refusal.
 */
import path from 'node:path';
import type { ApiKeySource } from '../../lambdas/core/entry/ports';
import { dynamoDbLedgerItems } from '../../lambdas/reconcile/dynamodb-ledger-items';
import { decodeExport } from '../../lambdas/reconcile/export-decoder';
import { LedgerItemView } from '../../lambdas/reconcile/ledger-item-view';
import { planNext, recordPlan } from '../../lambdas/reconcile/plan-record';
import { summarizePlan } from '../../lambdas/reconcile/plan-summary';
import { noteRefusal, planSnapshot } from '../../lambdas/reconcile/planner';
import { Refusal, refusedLine } from '../../lambdas/reconcile/refusal';
import type { OpsCommand } from '../deployment';
import { OpsError } from '../errors';
import { writeLine } from '../io';
import { deploymentRunHistory } from './deployment-run-history';
import { RECONCILE_EXIT } from './exit-codes';
import { locate, readNamed, readText } from './locations';
import { platformReaderFor } from './platform-access';

export const PLAN_EXIT = {
  noChanges: RECONCILE_EXIT.done,
  error: RECONCILE_EXIT.error,
  changes: RECONCILE_EXIT.changes,
} as const;

export interface ReconcilePlanOptions {
  readonly manifest: string;
  /** Where to write the plan. @default beside a local manifest, else the current folder */
  readonly out?: string | undefined;
  readonly platformUrl?: string | undefined;
  /** Instead of the config's secret (tests). */
  readonly apiKey?: ApiKeySource | undefined;
  readonly now?: () => number;
}

/** `<manifest>.plan.jsonl` beside a local manifest; for an s3:// one, in the current folder. */
const defaultPlanPath = (manifest: string): string => {
  const base = manifest.startsWith('s3://') ? path.basename(manifest) : manifest;
  return `${base.replace(/\.manifest\.json$|\.json$/, '')}.plan.jsonl`;
};

export const runReconcilePlan: OpsCommand<ReconcilePlanOptions> = async (
  deployment,
  options,
  io,
) => {
  const now = options.now ?? Date.now;
  const {
    s3,
    location: manifest,
    text: manifestText,
  } = await readNamed(options.manifest, 'manifest', deployment.config.deployment?.region);
  const { tableName, history } = await deploymentRunHistory(deployment);
  let run: Awaited<ReturnType<typeof planSnapshot>>;
  try {
    run = await planSnapshot({
      manifestText,
      manifestWhere: manifest.name,
      readExport: (file) => manifest.sibling(file).read(),
      decode: decodeExport,
      scopes: deployment.config.reconcile.scopes,
      campaignRegion: deployment.config.campaignRegion,
      reader: (kind) =>
        platformReaderFor(deployment.config, kind, {
          platformUrl: options.platformUrl,
          apiKey: options.apiKey,
        }),
      ledger: () =>
        new LedgerItemView({
          items: dynamoDbLedgerItems({ tableName, client: deployment.dynamoDb() }),
        }),
      history,
      readPlan: (location) => readText(locate(location, s3), 'previous plan'),
      now: now(),
    });
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    await noteRefusal(history, manifestText, error, new Date(now()).toISOString());
    throw new OpsError(refusedLine(error, 'Nothing was planned.'));
  }
  const { plan } = run;
  const planPath = path.resolve(options.out ?? defaultPlanPath(options.manifest));
  const reportPath = `${planPath.replace(/\.plan\.jsonl$|\.jsonl$/, '')}.report.jsonl`;
  // The operator applies it next: the scope's plan-only setting is the stack's run's.
  const next = planNext(plan, false);
  await recordPlan(
    run,
    next,
    {
      planLocation: planPath,
      reportLocation: reportPath,
      write: (file, text) => locate(file === 'plan' ? planPath : reportPath, s3).write(text),
    },
    history,
  );
  const changes = next !== 'no-changes';
  for (const line of summarizePlan(plan)) writeLine(io.stdout, line);
  for (const warning of run.warnings) writeLine(io.stderr, `Warning: ${warning}`);
  writeLine(io.stdout, `Plan written to ${planPath}; report ${reportPath}.`);
  if (changes) writeLine(io.stdout, `Apply it: npm run ops -- reconcile apply ${planPath}`);
  return changes ? PLAN_EXIT.changes : PLAN_EXIT.noChanges;
};
