/**
 * The run history contract, run against the in-memory store (local run) and the DynamoDB store
 * on moto (real SDK calls, real condition expressions): per scope, the newest snapshot planned
 * and the last applied only move forward, whatever order runs finish in.
 */
import { describe, expect, it } from 'vitest';
import { DynamoDbRunHistory } from '../../../lambdas/reconcile/dynamodb-run-history';
import { InMemoryRunHistory } from '../../../lambdas/reconcile/in-memory-run-history';
import type { RunHistory, SnapshotMark } from '../../../lambdas/reconcile/run-history';
import { ledgerTableStores } from '../../support/ledger-table';

const stores = ledgerTableStores<RunHistory>(
  () => new InMemoryRunHistory(),
  (access) => new DynamoDbRunHistory(access),
);

const mark = (
  exportedAt: string,
  sha: string,
  planLocation = `${sha}.plan.jsonl`,
): SnapshotMark => ({
  exportedAt,
  rowCount: 10,
  sha256: sha.repeat(64),
  planLocation,
});
/** Notes `snapshot` of the roster scope applied at `at`, approved by `approvedBy`. */
const appliedAt = (
  history: RunHistory,
  snapshot: SnapshotMark,
  at: string,
  approvedBy = 'auto-apply',
) => history.noteApplied('roster', snapshot, { at, approvedBy });
const OLDER = mark('2026-11-24T06:00:00.000Z', 'a');
const NEWER = mark('2026-11-25T06:00:00.000Z', 'b');

describe.each(stores)('run history contract: %s', (_name, makeStore) => {
  it('knows nothing of a scope that never ran', async () => {
    // Prepare
    const history = await makeStore();

    // Act / Assess
    expect(await history.scope('roster')).toEqual({});
  });

  it('notes the newest snapshot planned, and an older plan made later does not move it back', async () => {
    // Prepare
    const history = await makeStore();

    // Act
    await history.notePlanned('roster', NEWER);
    await history.notePlanned('roster', OLDER);

    // Assess
    expect(await history.scope('roster')).toEqual({ newest: NEWER });
    expect(await history.scope('other')).toEqual({});
  });

  it('keeps the newer snapshot applied when two applies finish out of order', async () => {
    // Prepare
    const history = await makeStore();
    await history.notePlanned('roster', OLDER);
    await history.notePlanned('roster', NEWER);

    // Act: the newer plan's apply finishes first
    await appliedAt(history, NEWER, '2026-11-25T08:00:00.000Z', 'ops:ada');
    await appliedAt(history, OLDER, '2026-11-25T08:05:00.000Z');

    // Assess
    expect(await history.scope('roster')).toEqual({
      newest: NEWER,
      applied: { ...NEWER, appliedAt: '2026-11-25T08:00:00.000Z', approvedBy: 'ops:ada' },
      lastSuccessAt: '2026-11-25T08:05:00.000Z',
    });
  });

  it('moves the snapshot applied forward, and the last success never back', async () => {
    // Prepare
    const history = await makeStore();
    await appliedAt(history, OLDER, '2026-11-24T08:00:00.000Z');

    // Act
    await appliedAt(history, NEWER, '2026-11-25T08:00:00.000Z');
    await history.noteSuccess('roster', '2026-11-25T07:00:00.000Z');

    // Assess
    const state = await history.scope('roster');
    expect(state.applied).toEqual({
      ...NEWER,
      appliedAt: '2026-11-25T08:00:00.000Z',
      approvedBy: 'auto-apply',
    });
    expect(state.lastSuccessAt).toBe('2026-11-25T08:00:00.000Z');
  });

  it('notes a success without a plan or an apply', async () => {
    // Prepare
    const history = await makeStore();

    // Act
    await history.noteSuccess('roster', '2026-11-25T07:00:00.000Z');
    await history.record({
      runId: 'r1',
      scope: 'roster',
      status: 'no-changes',
      at: '2026-11-25T07:00:00.000Z',
    });

    // Assess: a run record is kept apart from the scope's state
    expect(await history.scope('roster')).toEqual({ lastSuccessAt: '2026-11-25T07:00:00.000Z' });
    expect(await history.run('roster', 'r1')).toEqual({
      runId: 'r1',
      scope: 'roster',
      status: 'no-changes',
      at: '2026-11-25T07:00:00.000Z',
    });
  });

  it("keeps what a run's plan noted when its apply is noted: the new record wins, what it leaves out stays", async () => {
    // Prepare: the plan's record, with a warning, its report and its held deletes
    const history = await makeStore();
    await history.record({
      runId: 'r2',
      scope: 'roster',
      status: 'held',
      at: '2026-11-25T07:00:00.000Z',
      deletesHeld: 2,
      planLocation: 'p.plan.jsonl',
      reportLocation: 'p.report.jsonl',
      warnings: ["the previous snapshot's plan cannot be read"],
    });

    // Act: the apply's record names neither the report nor the warnings
    const applied = {
      runId: 'r2',
      scope: 'roster',
      status: 'applied',
      at: '2026-11-25T08:00:00.000Z',
      approvedBy: 'ops:ada',
      deletesHeld: 0,
      planLocation: 'p.plan.jsonl',
    } as const;
    await history.record(applied);

    // Assess: what the apply said wins, what it left out is kept
    expect(await history.run('roster', 'r2')).toEqual({
      ...applied,
      reportLocation: 'p.report.jsonl',
      warnings: ["the previous snapshot's plan cannot be read"],
    });
    expect(await history.run('other', 'r2')).toBeUndefined();
  });
});
