/**
 * The stack's reconcile run, one Lambda function the state machine calls in two steps:
 *
 * - `plan`: a manifest arrived (S3 → EventBridge → Step Functions). Verify, read the platform
 *   and the ledger, write the plan and its report beside the run, note the run, publish the
 *   metrics, and say what comes next: `apply` (the scope auto-applies and the plan is within the
 *   gates: its repairs are written as JSON Lines the state machine's Distributed Map sends to
 *   the queues), `held` (plan only, or deletes held: an alarm fires), `no-changes`, `refused`,
 *   or `continue` (out of time: the answers so far are kept and the next invocation goes on).
 * - `applied`: the Distributed Map sent every repair: the scope notes the snapshot as applied, or,
 *   when the plan's deletes were held while the rest went, notes the run so and alarms.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { withDeletesHeld, withWorkedDeletes, workedSincePlan } from './apply-check';
import { CHANGES, isRemoval } from './categories';
import { dynamoDbLedgerItems } from './dynamodb-ledger-items';
import { DynamoDbRunHistory } from './dynamodb-run-history';
import { decodeExport } from './export-decoder';
import { LedgerItemView } from './ledger-item-view';
import type { Plan } from './plan';
import { type PlanNext, planNext, recordPlan } from './plan-record';
import { PLAN_STEP_OUTCOME } from './plan-step-outcome';
import { noteRefusal, planSnapshot } from './planner';
import type { PlatformReader } from './platform-reader';
import type { RefusalCode } from './reconcile-codes';
import { Refusal } from './refusal';
import {
  type Answers,
  emptyAnswers,
  ReadBudgetSpent,
  type ResumableReader,
  resumableReader,
} from './resumable-reader';
import { parseS3Uri, readS3Bytes, readS3Text, siblingKey } from './s3-object';
import type { ReconcileScope } from './scope';
import { parseAnswers, serializeAnswers } from './stored-answers';

/** Time left when an invocation stops reading and hands over to the next. */
const HANDOVER_MS = 90_000;

export type PlanStepInput = {
  readonly step: 'plan';
  readonly bucket: string;
  readonly key: string;
  /** The execution's name: keeps a long plan's answers between invocations. */
  readonly runName: string;
};

export type PlanStepOutput =
  | { readonly outcome: typeof PLAN_STEP_OUTCOME.continue; readonly answered: number }
  | {
      readonly outcome: typeof PLAN_STEP_OUTCOME.refused;
      readonly code: RefusalCode;
      readonly message: string;
      readonly scope?: string;
    }
  | PlannedOutput;

/** A plan was made: what comes next, and where the run keeps its files. */
export type PlannedOutput = {
  readonly outcome: PlanNext;
  readonly scope: string;
  readonly runId: string;
  readonly planKey: string;
  readonly reportKey: string;
  readonly repairsKey?: string;
  readonly repairs: number;
  /** `apply`: the plan's deletes, held for a person while the rest is sent (0: none held). */
  readonly deletesHeld: number;
  readonly counts: Plan['counts'];
  readonly snapshot: {
    readonly exportedAt: string;
    readonly rowCount: number;
    readonly sha256: string;
  };
  readonly heldBecause: readonly string[];
};

export type AppliedStepInput = {
  readonly step: 'applied';
  readonly plan: PlannedOutput;
};

export interface RunMetrics {
  /** Count metrics with the scope as their dimension. */
  publish(scope: string, values: Readonly<Record<string, number>>): void;
}

export interface ReconcileRunDeps {
  readonly s3: S3Client;
  readonly bucket: string;
  readonly tableName: string;
  readonly ledgerClient: DynamoDBClient;
  readonly scopes: Readonly<Record<string, ReconcileScope>>;
  readonly campaignRegion: Parameters<typeof planSnapshot>[0]['campaignRegion'];
  readonly reader: (kind: ReconcileScope['kind']) => PlatformReader;
  readonly queueUrls: Readonly<Record<string, string>>;
  readonly metrics: RunMetrics;
  readonly now?: () => number;
}

const writeObject = (s3: S3Client, bucket: string, key: string, body: string) =>
  s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));

const answersKey = (runName: string) => `runs/answers/${runName}.json`;

const loadAnswers = async (s3: S3Client, bucket: string, runName: string): Promise<Answers> => {
  const key = answersKey(runName);
  try {
    const users = parseAnswers(await readS3Text(s3, { bucket, key }), `s3://${bucket}/${key}`);
    return { ...emptyAnswers(), users };
  } catch (error) {
    if (error instanceof NoSuchKey || (error as Error).name === 'NoSuchKey') return emptyAnswers();
    throw error;
  }
};

export const createReconcileRun = (deps: ReconcileRunDeps) => {
  const now = deps.now ?? Date.now;
  const history = new DynamoDbRunHistory({ tableName: deps.tableName, client: deps.ledgerClient });
  const ledgerItems = dynamoDbLedgerItems({ tableName: deps.tableName, client: deps.ledgerClient });
  const { s3, bucket } = deps;

  const plan = async (
    input: PlanStepInput,
    context: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<PlanStepOutput> => {
    const answers = await loadAnswers(s3, bucket, input.runName);
    const hasTime = () => context.getRemainingTimeInMillis() > HANDOVER_MS;
    const readers: (ResumableReader & { readonly kind: ReconcileScope['kind'] })[] = [];
    let run: Awaited<ReturnType<typeof planSnapshot>>;
    const manifestText = await readS3Text(s3, input);
    // Every refusal is noted in the run history, where an operator looks for the runs.
    const refuse = async (code: RefusalCode, message: string): Promise<PlanStepOutput> => {
      const at = new Date(now()).toISOString();
      const scope = await noteRefusal(history, manifestText, { code, message }, at);
      deps.metrics.publish(scope, { ReconcileRunsRefused: 1 });
      return { outcome: PLAN_STEP_OUTCOME.refused, code, message, scope };
    };
    try {
      run = await planSnapshot({
        manifestText,
        manifestWhere: `s3://${input.bucket}/${input.key}`,
        readExport: (file) =>
          readS3Bytes(s3, { bucket: input.bucket, key: siblingKey(input.key, file) }),
        decode: decodeExport,
        scopes: deps.scopes,
        campaignRegion: deps.campaignRegion,
        reader: (kind) => {
          const reader = Object.assign(resumableReader(deps.reader(kind), answers, hasTime), {
            kind,
          });
          readers.push(reader);
          return reader;
        },
        // A view per plan: what it read of the ledger is kept for that plan only.
        ledger: () => new LedgerItemView({ items: ledgerItems }),
        history,
        readPlan: async (location) => {
          const object = parseS3Uri(location);
          if (object === undefined) throw new Error(`not an s3:// location: ${location}`);
          return readS3Text(s3, object);
        },
        now: now(),
      });
    } catch (error) {
      if (error instanceof ReadBudgetSpent && readers.some((r) => r.kind === 'records')) {
        // Searches are not kept between invocations (a million records would be hundreds of
        // MB): a sweep that does not fit one invocation is refused, not looped on for ever.
        return refuse(
          'SWEEP_TOO_LONG',
          'the records sweep does not fit one invocation (15 min): raise reconcile.platformShare, split the scope by campaign, or plan it with npm run ops -- reconcile plan',
        );
      }
      if (error instanceof ReadBudgetSpent) {
        // Reads already on their way still answer: kept, they are not asked again.
        await Promise.all(readers.map((reader) => reader.settled()));
        await writeObject(s3, bucket, answersKey(input.runName), serializeAnswers(answers.users));
        return {
          outcome: PLAN_STEP_OUTCOME.continue,
          answered: Object.keys(answers.users).length,
        };
      }
      if (error instanceof Refusal) return refuse(error.code, error.message);
      throw error;
    }
    let result = run.plan;
    const scope = deps.scopes[result.scope];
    if (scope?.apply === 'auto' && !result.deletes.held) {
      // The sweep read each record once, up to minutes before an auto-applied plan's deletes
      // go: the records to delete are searched again (not from the kept answers), and if an
      // agent has worked one since, it is named WORKED_BY_AGENT and every delete waits for a
      // person, as the plan would have held them had it seen the attempts.
      // Each search first asks for the invocation's time, as the sweep's reads do (not through
      // the resumable reader: its kept answers are the sweep's): past the timeout nothing
      // would be recorded, so deletes that cannot be searched again in time wait instead.
      const timed = (): Pick<PlatformReader, 'search'> => {
        const reader = deps.reader('records');
        return {
          search: async (request) => {
            if (!hasTime())
              throw new ReadBudgetSpent('the invocation is out of time for the recheck');
            return reader.search(request);
          },
        };
      };
      const worked: string[] = [];
      try {
        await workedSincePlan(result, timed, { onWorked: (entity) => worked.push(entity) });
        if (worked.length > 0) result = withWorkedDeletes(result, worked);
      } catch (error) {
        if (error instanceof Refusal) return refuse(error.code, error.message);
        if (!(error instanceof ReadBudgetSpent)) throw error;
        // Those found worked before the time ran out are named, as a whole recheck names them.
        if (worked.length > 0) result = withWorkedDeletes(result, worked);
        result = withDeletesHeld(
          result,
          `the records to delete could not be searched again in time (the sweep left too little of the invocation): check them, then apply the plan with reconcile apply --allow-deletes ${result.deletes.count}, which searches them again before they go`,
        );
      }
    }
    const base = `runs/${result.scope}/${result.planId}`;
    const planKey = `${base}/plan.jsonl`;
    const reportKey = `${base}/report.jsonl`;
    // Held deletes wait for a person; what else the plan repairs goes, as `reconcile apply`
    // sends it (the applied step then notes the run as applied with its deletes held).
    const outcome = planNext(result, scope?.apply !== 'auto');
    const deletesHeld = outcome === 'apply' && result.deletes.held ? result.deletes.count : 0;
    const repairs = result.entries.flatMap((entry) => {
      if (entry.repair === undefined) return [];
      if (isRemoval(entry.category) && deletesHeld > 0) return [];
      const queueUrl = deps.queueUrls[entry.repair.action];
      if (queueUrl === undefined)
        throw new Error(`no queue for ${entry.repair.action}: is the action enabled?`);
      return [JSON.stringify({ queueUrl, body: JSON.stringify(entry.repair.message) })];
    });
    const repairsKey = `${base}/repairs.jsonl`;
    if (outcome === 'apply') await writeObject(s3, bucket, repairsKey, `${repairs.join('\n')}\n`);
    await recordPlan(
      { plan: result, warnings: run.warnings },
      outcome,
      {
        planLocation: `s3://${bucket}/${planKey}`,
        reportLocation: `s3://${bucket}/${reportKey}`,
        write: async (file, text) => {
          await writeObject(s3, bucket, file === 'plan' ? planKey : reportKey, text);
        },
      },
      history,
    );
    const snapshot = {
      exportedAt: result.snapshot.exportedAt,
      rowCount: result.snapshot.rowCount,
      sha256: result.snapshot.sha256,
    };
    deps.metrics.publish(result.scope, {
      ReconcileDriftFound: CHANGES.reduce((n, c) => n + result.counts[c], 0),
      // An applied plan's held deletes are counted when it is applied (the applied step).
      ReconcileDeletesHeld: result.deletes.held && deletesHeld === 0 ? result.deletes.count : 0,
      ReconcilePlansHeld: outcome === 'held' ? 1 : 0,
      ReconcileUnmanaged: result.counts.unmanaged,
      ReconcileConflicts: result.counts.conflict,
      ReconcileRunSucceeded: outcome === 'no-changes' ? 1 : 0,
    });
    return {
      outcome,
      scope: result.scope,
      runId: result.planId,
      planKey,
      reportKey,
      ...(outcome === 'apply' ? { repairsKey } : {}),
      repairs: repairs.length,
      deletesHeld,
      counts: result.counts,
      snapshot,
      heldBecause:
        outcome === 'held' && !result.deletes.held
          ? ['the scope is plan-only']
          : result.deletes.heldBecause,
    };
  };

  const applied = async (input: AppliedStepInput): Promise<{ readonly outcome: 'applied' }> => {
    const at = new Date(now()).toISOString();
    const { plan: step } = input;
    // As `reconcile apply` does: a plan whose deletes wait is not the scope's applied snapshot
    // yet, its run says the deletes are held, and the PlanHeld alarm fires for a person.
    const held = step.deletesHeld ?? 0;
    if (held === 0) {
      await history.noteApplied(
        step.scope,
        { ...step.snapshot, planLocation: `s3://${bucket}/${step.planKey}` },
        { at, approvedBy: 'auto-apply' },
      );
    }
    await history.record({
      runId: step.runId,
      scope: step.scope,
      status: held > 0 ? 'applied-deletes-held' : 'applied',
      at,
      counts: step.counts,
      approvedBy: 'auto-apply',
      deletesHeld: held,
      planLocation: `s3://${bucket}/${step.planKey}`,
      reportLocation: `s3://${bucket}/${step.reportKey}`,
    });
    deps.metrics.publish(step.scope, {
      ReconcileDriftRepaired: step.repairs,
      ReconcileDeletesHeld: held,
      ReconcilePlansHeld: held > 0 ? 1 : 0,
      ReconcileRunSucceeded: held > 0 ? 0 : 1,
    });
    return { outcome: 'applied' };
  };

  return async (
    event: PlanStepInput | AppliedStepInput,
    context: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<PlanStepOutput | { readonly outcome: 'applied' }> =>
    event.step === 'plan' ? plan(event, context) : applied(event);
};
