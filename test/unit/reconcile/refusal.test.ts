/**
 * Reconciliation's errors share the one base (`SyncError`), and its refusals the one `Refusal`:
 * whoever plans or applies sorts them by that base alone, so each refusal must carry a code of
 * the table, print as the operator commands printed it class by class, and be noted in the run
 * history in a form that reads back.
 */
import { describe, expect, it } from 'vitest';
import { SyncError } from '../../../lambdas/core/errors';
import { PlanRefused } from '../../../lambdas/reconcile/apply-check';
import { InMemoryRunHistory } from '../../../lambdas/reconcile/in-memory-run-history';
import { SnapshotRefused } from '../../../lambdas/reconcile/manifest';
import { PlanFileError } from '../../../lambdas/reconcile/plan-file';
import { noteRefusal } from '../../../lambdas/reconcile/planner';
import { PlatformReadError } from '../../../lambdas/reconcile/platform-reader';
import { REFUSAL_CODES } from '../../../lambdas/reconcile/reconcile-codes';
import { Refusal, refusedLine } from '../../../lambdas/reconcile/refusal';
import { ReadBudgetSpent } from '../../../lambdas/reconcile/resumable-reader';
import { RunEnvError } from '../../../lambdas/reconcile/run-env';
import { parseRunRecord, storedItem } from '../../../lambdas/reconcile/run-history-items';

describe('reconciliation refusals', () => {
  it.each([
    [
      'a snapshot refused',
      new SnapshotRefused('HASH_MISMATCH', 'export.csv: sha256 differs'),
      'Refused (HASH_MISMATCH): export.csv: sha256 differs. Nothing was planned.',
    ],
    [
      'a platform that cannot be read',
      new PlatformReadError('GET /users answered 503'),
      'Refused (PLATFORM_READ): the platform could not be read: GET /users answered 503. Nothing was planned.',
    ],
    [
      'a damaged plan file',
      new PlanFileError('plan.jsonl: line 2 is not JSON'),
      'Refused (PLAN_UNREADABLE): plan.jsonl: line 2 is not JSON. Nothing was planned.',
    ],
    [
      'a plan refused at apply',
      new PlanRefused('STALE_PLAN', 'plan p-1 was made 30 h ago'),
      'Refused (STALE_PLAN): plan p-1 was made 30 h ago. Nothing was planned.',
    ],
  ])(
    'sorts %s by its base, with a code of the table and the line it always printed',
    (_name, error, line) => {
      // Act
      const caught: unknown = error;

      // Assess
      expect(caught).toBeInstanceOf(SyncError);
      expect(caught).toBeInstanceOf(Refusal);
      expect(Object.keys(REFUSAL_CODES)).toContain(error.code);
      expect(refusedLine(error, 'Nothing was planned.')).toBe(line);
    },
  );

  it.each([
    ['an invocation out of time', new ReadBudgetSpent('out of time'), 'retryable'],
    ['a broken function environment', new RunEnvError('invalid environment'), 'operator'],
  ])('does not take %s for a refusal', (_name, error, category) => {
    // Act
    const caught: unknown = error;

    // Assess
    expect(caught).toBeInstanceOf(SyncError);
    expect(caught).not.toBeInstanceOf(Refusal);
    expect(error.category).toBe(category);
  });

  it('notes a refusal error in the run history as a run item that reads back', async () => {
    // Prepare
    const history = new InMemoryRunHistory();
    const at = '2026-11-29T00:00:00.000Z';
    const refusal = new SnapshotRefused('EMPTY', 'export.csv holds no rows');

    // Act
    const scope = await noteRefusal(history, JSON.stringify({ scope: 'roster' }), refusal, at);
    const run = await history.run(scope, 'refused-20261129T000000000Z');

    // Assess
    expect(scope).toBe('roster');
    expect(run).toBeDefined();
    const read = parseRunRecord(
      storedItem(run ?? { runId: '', scope, status: 'refused', at }),
      'k',
    );
    expect(read.refusal).toEqual({ code: 'EMPTY', message: 'export.csv holds no rows' });
  });
});
