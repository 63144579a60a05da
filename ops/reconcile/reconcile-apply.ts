/**
 * `reconcile apply <plan>`: sends exactly the plan's repairs, through the bulk sender, to the
 * action queues, where the handlers order them against live events (`occurredAt` is the
 * export's time). Refuses a stale or superseded plan; held deletes go only when
 * `--allow-deletes` names their count.
 */
import os from 'node:os';
import path from 'node:path';
import {
  checkApplicable,
  checkRecorded,
  recheckDeletes,
  repairsByAction,
} from '../../lambdas/reconcile/apply-check';
import { isDeleteRepair, REPAIR_ORDER } from '../../lambdas/reconcile/categories';
import { WORKED_BY_AGENT } from '../../lambdas/reconcile/delete-gate';
import { parsePlan, planDigest } from '../../lambdas/reconcile/plan-file';
import { PlatformReadError } from '../../lambdas/reconcile/platform-reader';
import { Refusal, refusedLine } from '../../lambdas/reconcile/refusal';
import { queueBatchSender } from '../bulk/batch-target';
import { counted } from '../counted';
import type { OpsCommand } from '../deployment';
import { OpsError } from '../errors';
import { writeLine } from '../io';
import { deploymentRunHistory } from './deployment-run-history';
import { RECONCILE_EXIT } from './exit-codes';
import { readNamed } from './locations';
import { type PlatformAccessOptions, platformReaderFor } from './platform-access';
import { sendRepairs } from './repair-sender';

export interface ReconcileApplyOptions extends PlatformAccessOptions {
  readonly plan: string;
  readonly allowDeletes?: number | undefined;
  readonly parallel: number;
  /** The options that chose the deployment (`--config example`, …): the release command repeats them. */
  readonly environment?: readonly string[];
  readonly now?: () => number;
  readonly backoffMs?: (retry: number) => number;
}

export const runReconcileApply: OpsCommand<ReconcileApplyOptions> = async (
  deployment,
  options,
  io,
) => {
  const now = options.now ?? Date.now;
  const { location, text } = await readNamed(
    options.plan,
    'plan',
    deployment.config.deployment?.region,
  );
  let plan: ReturnType<typeof parsePlan>;
  try {
    plan = parsePlan(text, location.name);
  } catch (error) {
    if (error instanceof Refusal) throw new OpsError(refusedLine(error, 'Nothing was sent.'));
    throw error;
  }
  const { history } = await deploymentRunHistory(deployment);
  const state = await history.scope(plan.scope);
  let decision: ReturnType<typeof checkApplicable>;
  try {
    checkRecorded(plan, planDigest(text), await history.run(plan.scope, plan.planId));
    decision = checkApplicable(plan, {
      now: now(),
      maxAgeHours: deployment.config.reconcile.planMaxAgeHours,
      state,
      allowDeletes: options.allowDeletes,
    });
  } catch (error) {
    if (error instanceof Refusal) throw new OpsError(refusedLine(error, 'Nothing was sent.'));
    throw error;
  }
  const repairs = repairsByAction(plan, decision);
  // Repair files and their checkpoints live beside a local plan, else in the current folder.
  const base = options.plan.startsWith('s3://')
    ? path.resolve(`${plan.planId}.plan.jsonl`)
    : path.resolve(options.plan);
  let failed = 0;
  let sent = 0;
  let before = 0;
  let worked: readonly string[] = [];
  for (const action of REPAIR_ORDER) {
    const messages = repairs.get(action);
    if (messages === undefined || messages.length === 0) continue;
    if (action === 'delete-campaign-record') {
      // Agents may have worked a record to delete since the plan: searched again just before
      // the deletes go (the creates and updates before them may take minutes), the deletes are
      // then held whole, as the plan would have held them.
      let rechecked: Awaited<ReturnType<typeof recheckDeletes>>;
      try {
        rechecked = await recheckDeletes(plan, decision, () =>
          platformReaderFor(deployment.config, 'records', {
            platformUrl: options.platformUrl,
            apiKey: options.apiKey,
          }),
        );
      } catch (error) {
        if (!(error instanceof PlatformReadError)) throw error;
        throw new OpsError(
          `The records to delete could not be searched again: ${error.message}. No delete was sent; ${counted(sent, 'repair')} went before them${before > 0 ? `, besides ${before} sent by an earlier apply` : ''}. Rerun the same command: what was sent is not sent again.`,
        );
      }
      decision = rechecked;
      worked = rechecked.workedSincePlan;
    }
    if (isDeleteRepair(action) && !decision.sendDeletes) continue;
    const { queueUrl } = await deployment.queues(action);
    const result = await sendRepairs({
      action,
      messages,
      file: `${base}.${action}.jsonl`,
      exportedAt: plan.snapshot.exportedAt,
      target: { name: `${action} queue`, send: queueBatchSender(deployment.sqs(), queueUrl) },
      parallel: options.parallel,
      signal: io.signal,
      backoffMs: options.backoffMs,
    });
    sent += result.sent;
    before += result.sentBefore;
    failed += result.failed;
    writeLine(
      io.stdout,
      `  ${action.padEnd(30)} ${counted(result.messages, 'repair')}: sent ${result.sent}${result.sentBefore > 0 ? `, ${result.sentBefore} sent before (checkpoint)` : ''}${result.failed > 0 ? `, FAILED ${result.failed}` : ''}`,
    );
    if (result.stoppedBy !== undefined) writeLine(io.stderr, `Stopped: ${result.stoppedBy}`);
  }
  const approvedBy = `ops:${os.userInfo().username}`;
  const at = new Date(now()).toISOString();
  const complete = failed === 0 && decision.heldDeletes === 0;
  await history.record({
    runId: plan.planId,
    scope: plan.scope,
    status: complete ? 'applied' : failed > 0 ? 'held' : 'applied-deletes-held',
    at,
    counts: plan.counts,
    approvedBy,
    planLocation: location.name,
    // Always said: the record is merged into the plan's, whose held deletes this apply may send.
    deletesHeld: decision.heldDeletes,
  });
  if (complete) {
    await history.noteApplied(
      plan.scope,
      {
        exportedAt: plan.snapshot.exportedAt,
        rowCount: plan.snapshot.rowCount,
        sha256: plan.snapshot.sha256,
        planLocation: location.name,
      },
      { at, approvedBy },
    );
  }
  writeLine(
    io.stdout,
    `Applied plan ${plan.planId}: ${counted(sent, 'repair')} sent now${before > 0 ? `, ${before} by an earlier apply` : ''}, stamped occurredAt ${plan.snapshot.exportedAt}; the handlers order them against live events.`,
  );
  if (failed > 0) {
    writeLine(
      io.stderr,
      `${counted(failed, 'repair')} could not be sent: rerun the same command to send them.`,
    );
    return RECONCILE_EXIT.error;
  }
  if (decision.heldDeletes === 0) return RECONCILE_EXIT.done;
  // The last line: what waits for a person, and the one command that releases it.
  const held = counted(decision.heldDeletes, 'delete');
  const command = [
    `npm run ops -- reconcile apply ${options.plan} --allow-deletes ${decision.heldDeletes}`,
    ...(options.environment ?? []),
  ].join(' ');
  writeLine(
    io.stdout,
    worked.length > 0
      ? `HELD ${held} (${WORKED_BY_AGENT}: an agent has worked ${counted(worked.length, 'record')} to delete since the plan, first ${worked[0]}): this plan cannot release them; plan the snapshot ${plan.snapshot.file} again (npm run ops -- reconcile plan <its manifest>), which names them, and apply that plan with --allow-deletes <its delete count>.`
      : `HELD ${held} (${plan.deletes.heldBecause.join('; ')}): check them in the plan, then release them: ${command}`,
  );
  return RECONCILE_EXIT.deletesHeld;
};
