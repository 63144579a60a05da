/**
 * The run history's items are kept 400 days: each is parsed on every read, the first shape
 * (written before items carried a version) still reads, and a damaged item is refused with its
 * key and the field that is wrong, never taken for a scope that never ran.
 */
import { describe, expect, it } from 'vitest';
import type { ScopeState } from '../../../lambdas/reconcile/run-history';
import {
  parseRunRecord,
  parseScopeState,
  RUN_HISTORY_ITEM_VERSION,
  storedItem,
} from '../../../lambdas/reconcile/run-history-items';

/** Items as the first shape was written (`JSON.stringify` of the state and the run, no version). */
const FIRST_SCOPE = JSON.stringify({
  newest: {
    exportedAt: '2026-11-25T06:00:00.000Z',
    rowCount: 10,
    sha256: 'b'.repeat(64),
    planLocation: 's3://bucket/runs/roster/p2/plan.jsonl',
  },
  applied: {
    exportedAt: '2026-11-24T06:00:00.000Z',
    rowCount: 10,
    sha256: 'a'.repeat(64),
    appliedAt: '2026-11-24T08:00:00.000Z',
    approvedBy: 'ops:ada',
  },
  lastSuccessAt: '2026-11-24T08:00:00.000Z',
});
const FIRST_RUN = JSON.stringify({
  runId: 'roster-abc-20261125T060000000Z',
  scope: 'roster',
  status: 'applied-deletes-held',
  at: '2026-11-25T06:10:00.000Z',
  counts: { create: 1, update: 0, delete: 2 },
  deletesHeld: 2,
  approvedBy: 'auto-apply',
  planLocation: 's3://bucket/runs/roster/p2/plan.jsonl',
  planSha256: 'c'.repeat(64),
  reportLocation: 's3://bucket/runs/roster/p2/report.jsonl',
  warnings: ['the previous plan is gone'],
});
const REFUSED_RUN = JSON.stringify({
  runId: 'r1',
  scope: 'roster',
  status: 'refused',
  at: '2026-11-25T06:10:00.000Z',
  refusal: { code: 'HASH_MISMATCH', message: "the export's SHA-256 is not the manifest's" },
});

describe('run history items', () => {
  it.each([
    ['a scope state', FIRST_SCOPE, parseScopeState],
    ['a run', FIRST_RUN, parseRunRecord],
    ['a refused run', REFUSED_RUN, parseRunRecord],
  ] as const)('reads %s of the first shape, and writes it back versioned', (_name, text, parse) => {
    // Act
    const read = parse(text, 'reconcile#x');
    const stored = storedItem(read);

    // Assess
    expect(read).toEqual(JSON.parse(text));
    expect(JSON.parse(stored)).toEqual({ version: RUN_HISTORY_ITEM_VERSION, ...JSON.parse(text) });
    expect(parse(stored, 'reconcile#x')).toEqual(read);
  });

  it('keeps a field it does not know through a read and a write back', () => {
    // Prepare
    const text = JSON.stringify({ version: 1, lastSuccessAt: 'x', addedLater: { n: 1 } });

    // Act
    const state: ScopeState = parseScopeState(text, 'reconcile#scope#roster');

    // Assess
    expect(JSON.parse(storedItem(state))).toMatchObject({ addedLater: { n: 1 } });
  });

  it.each([
    ['not JSON', '{"runId":', 'reconcile#run#roster#r1 is not JSON'],
    [
      'a status no version knows',
      JSON.stringify({ ...JSON.parse(FIRST_RUN), status: 'done' }),
      'status',
    ],
    [
      'a refusal code no version knows',
      JSON.stringify({ ...JSON.parse(REFUSED_RUN), refusal: { code: 'NOPE', message: 'm' } }),
      'refusal.code',
    ],
    ['a missing runId', JSON.stringify({ scope: 's', status: 'held', at: 'x' }), 'runId'],
    ['a newer version', JSON.stringify({ ...JSON.parse(FIRST_RUN), version: 2 }), 'version'],
  ])('refuses a run item with %s, naming its key and the field', (_name, text, names) => {
    // Act
    const read = () => parseRunRecord(text, 'reconcile#run#roster#r1');

    // Assess
    expect(read).toThrow(names);
    expect(read).toThrow('reconcile#run#roster#r1');
  });

  it('refuses a scope item whose snapshot lacks its hash', () => {
    // Prepare
    const text = JSON.stringify({ newest: { exportedAt: 'x', rowCount: 1 } });

    // Act / Assess
    expect(() => parseScopeState(text, 'reconcile#scope#roster')).toThrow('newest.sha256');
  });
});
