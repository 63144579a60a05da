/**
 * The safety rules of a plan, table-driven: the delete gate max(N, p % of the scope) holds the
 * whole delete set; the shrink guard holds it when the export shrank too much; `apply` refuses
 * a stale or superseded plan, and a plan file other than the one its run noted, and sends held
 * deletes only when --allow-deletes names their count.
 */
import { describe, expect, it } from 'vitest';
import type { CampaignRecord } from '../../../lambdas/core/platform/platform-responses';
import {
  checkApplicable,
  checkRecorded,
  repairsByAction,
  workedSincePlan,
} from '../../../lambdas/reconcile/apply-check';
import type { PlanEntry } from '../../../lambdas/reconcile/categories';
import { deleteGate, WORKED_BY_AGENT } from '../../../lambdas/reconcile/delete-gate';
import type { Plan } from '../../../lambdas/reconcile/plan';
import { planDigest, serializePlan } from '../../../lambdas/reconcile/plan-file';
import type { EntryReason } from '../../../lambdas/reconcile/reconcile-codes';
import type { RunRecord } from '../../../lambdas/reconcile/run-history';
import type { UsersScope } from '../../../lambdas/reconcile/scope';
import type { Snapshot } from '../../../lambdas/reconcile/snapshot';
import { scopesOf } from '../../support/reconcile-scopes';
import { usersPlan } from './plan-fixture';

const scopeOf = (policy: object): UsersScope =>
  scopesOf({ s: { kind: 'users', ...policy } }).s as UsersScope;
const snapshotOf = (rowCount: number, policy: object = {}): Snapshot => ({
  kind: 'users',
  id: 'abc',
  scope: scopeOf(policy),
  rows: [],
  manifest: {
    kind: 'users',
    scope: 's',
    file: 'f.csv',
    format: 'csv',
    exportedAt: '2026-11-25T06:00:00.000Z',
    rowCount,
    sha256: 'a'.repeat(64),
  },
});

describe('delete gate and shrink guard', () => {
  it.each([
    ['within max(N, p %)', { deleteGate: { count: 5, percent: 10 } }, 1000, 100, undefined, false],
    [
      'over p % of the scope',
      { deleteGate: { count: 5, percent: 10 } },
      1000,
      101,
      undefined,
      true,
    ],
    ['over N for a small scope', { deleteGate: { count: 5, percent: 10 } }, 20, 6, undefined, true],
    ['an export shrunk past the guard', { shrinkGuardPercent: 10 }, 890, 1, 1000, true],
    ['an export shrunk within the guard', { shrinkGuardPercent: 10 }, 900, 1, 1000, false],
    ['no deletes at all, however shrunk', { shrinkGuardPercent: 10 }, 10, 0, 1000, false],
  ])('%s', (_name, policy, size, deletes, previousRows, held) => {
    // Act
    const gate = deleteGate(
      snapshotOf(size, policy),
      deletes,
      size,
      previousRows === undefined
        ? undefined
        : { exportedAt: '2026-11-24T06:00:00.000Z', rowCount: previousRows, sha256: 'b' },
    );

    // Assess
    expect(gate.held).toBe(held);
    expect(gate.heldBecause.length > 0).toBe(held);
  });
});

const plan = (overrides: Partial<Plan> = {}): Plan => ({
  ...usersPlan(3, {
    counts: {
      create: 1,
      update: 0,
      delete: 2,
      unmanaged: 0,
      conflict: 0,
      skipped: 0,
      'in-sync': 0,
    },
    deletes: {
      count: 2,
      gate: 1,
      scopeSize: 3,
      held: true,
      heldBecause: ['2 deletes exceed the gate'],
    },
    platformReads: 3,
    entries: [
      {
        entity: 'user:a',
        category: 'create',
        repair: { action: 'add-user', message: { loginUserId: 'a' } },
      },
      {
        entity: 'user:b',
        category: 'delete',
        repair: { action: 'delete-user', message: { loginUserId: 'b' } },
      },
      {
        entity: 'user:c',
        category: 'delete',
        repair: { action: 'delete-user', message: { loginUserId: 'c' } },
      },
    ],
  }),
  ...overrides,
});
const now = Date.parse('2026-11-25T09:00:00.000Z');
const mark = (exportedAt: string, sha = 'a'.repeat(64)) => ({
  exportedAt,
  rowCount: 3,
  sha256: sha,
});

describe('apply checks', () => {
  it.each([
    ['a plan older than the configured age', { maxAgeHours: 0.5 }, {}, 'STALE_PLAN'],
    [
      'a plan whose scope planned a newer snapshot',
      {},
      { newest: mark('2026-11-25T07:00:00.000Z') },
      'SUPERSEDED',
    ],
    [
      'a plan whose scope applied a newer snapshot',
      {},
      { applied: { ...mark('2026-11-26T00:00:00.000Z'), appliedAt: 'x', approvedBy: 'y' } },
      'SUPERSEDED',
    ],
    ['--allow-deletes naming another count', { allowDeletes: 1 }, {}, 'DELETE_COUNT'],
  ])('refuses %s', (_name, options, state, code) => {
    // Act
    const attempt = () => checkApplicable(plan(), { now, maxAgeHours: 24, state, ...options });

    // Assess
    expect(attempt).toThrow(expect.objectContaining({ code }));
  });

  it.each([
    [
      'held deletes without --allow-deletes: the rest goes, the deletes wait whole',
      undefined,
      ['add-user'],
      2,
    ],
    ['held deletes named by count: all go', 2, ['add-user', 'delete-user'], 0],
  ])('%s', (_name, allowDeletes, actions, heldDeletes) => {
    // Act
    const decision = checkApplicable(plan(), {
      now,
      maxAgeHours: 24,
      state: { newest: mark('2026-11-25T06:00:00.000Z') },
      allowDeletes,
    });
    const repairs = repairsByAction(plan(), decision);

    // Assess
    expect([...repairs.keys()]).toEqual(actions);
    expect(decision.heldDeletes).toBe(heldDeletes);
    expect(repairs.get('delete-user')?.length ?? 0).toBe(heldDeletes === 0 ? 2 : 0);
  });
});

describe('the plan file its run noted', () => {
  const noted = (planSha256?: string): RunRecord => ({
    runId: 'p1',
    scope: 's',
    status: 'held',
    at: '2026-11-25T06:30:00.000Z',
    ...(planSha256 === undefined ? {} : { planSha256 }),
  });

  it.each([
    ['a file whose run noted another digest (edited since)', noted('b'.repeat(64)), 'PLAN_ALTERED'],
    ['a file whose run this history never noted', undefined, 'NOT_RECORDED'],
  ])('refuses %s', (_name, recorded, code) => {
    // Act
    const attempt = () => checkRecorded({ planId: 'p1', scope: 's' }, 'a'.repeat(64), recorded);

    // Assess
    expect(attempt).toThrow(expect.objectContaining({ code }));
  });

  it.each([
    ['the file its run noted', noted('a'.repeat(64))],
    ['a file of a run noted before digests were kept (its header checks alone apply)', noted()],
  ])('accepts %s', (_name, recorded) => {
    // Act
    const attempt = () => checkRecorded({ planId: 'p1', scope: 's' }, 'a'.repeat(64), recorded);

    // Assess
    expect(attempt).not.toThrow();
  });

  it('notes the digest of the text it is given: a changed byte changes it', () => {
    // Prepare
    const text = serializePlan(plan());

    // Act / Assess
    expect(planDigest(text)).toMatch(/^[0-9a-f]{64}$/);
    expect(planDigest(text)).toBe(planDigest(serializePlan(plan())));
    expect(planDigest(text.replace('"gate":', '"gate": '))).not.toBe(planDigest(text));
  });
});

describe('records worked since the plan', () => {
  const recordDelete = (clientId: string, reason?: EntryReason): PlanEntry => ({
    entity: `record:Renewals:${clientId}`,
    category: 'delete',
    ...(reason === undefined ? {} : { reason }),
    repair: {
      action: 'delete-campaign-record',
      message: {
        campaignName: 'Renewals',
        region: 'us-east-1',
        clientId,
        occurredAt: '2026-11-25T06:00:00.000Z',
      },
    },
  });
  const onPlatform = (clientId: string, workAttempts: number) =>
    ({ clientId, previewRecordID: `p-${clientId}`, workAttempts }) as CampaignRecord;

  it.each([
    ['none worked: every delete may go', [['C-1', 0]], [], []],
    [
      'one worked since the plan: named',
      [
        ['C-1', 0],
        ['C-2', 2],
      ],
      [],
      ['record:Renewals:C-2'],
    ],
    ['gone from the platform since: not worked', [], [], []],
    // A person saw those deletes in the plan and allowed their count: not searched again.
    ['worked already at plan time (WORKED_BY_AGENT)', [['C-2', 3]], ['C-2'], []],
  ] as const)('%s', async (_name, platform, workedAtPlan, expected) => {
    // Prepare
    const records = new Map<string, CampaignRecord>(
      platform.map(([id, attempts]) => [id, onPlatform(id, attempts)]),
    );
    const searched: unknown[] = [];
    const reader = {
      search: async (request: { clientId?: string | undefined }) => {
        searched.push(request);
        const found = records.get(request.clientId ?? '');
        return found === undefined ? [] : [found];
      },
    };
    const entries = ['C-1', 'C-2'].map((id) =>
      recordDelete(
        id,
        (workedAtPlan as readonly string[]).includes(id) ? WORKED_BY_AGENT : undefined,
      ),
    );

    // Act
    const worked = await workedSincePlan(plan({ kind: 'records', entries }), () => reader);

    // Assess
    expect(worked).toEqual(expected);
    expect(searched).toHaveLength(2 - workedAtPlan.length);
    expect(searched[0]).toMatchObject({ campaignName: 'Renewals', region: 'us-east-1' });
  });

  it('when a search fails, starts no other, hears the worked ones in flight, then throws', async () => {
    // Prepare: C-1 worked and answered last; C-2's search fails at once; C-3 never starts
    let answerC1 = (): void => undefined;
    const searched: string[] = [];
    const reader = {
      search: (request: { clientId?: string | undefined }): Promise<CampaignRecord[]> => {
        searched.push(request.clientId ?? '');
        if (request.clientId === 'C-2') return Promise.reject(new Error('out of time'));
        return new Promise((resolve) => {
          answerC1 = () => resolve([onPlatform('C-1', 1)]);
        });
      },
    };
    const entries = ['C-1', 'C-2', 'C-3'].map((id) => recordDelete(id, undefined));
    const heard: string[] = [];

    // Act
    const recheck = workedSincePlan(plan({ kind: 'records', entries }), () => reader, {
      concurrency: 2,
      onWorked: (entity) => heard.push(entity),
    });
    await new Promise((resolve) => setImmediate(resolve));
    answerC1();

    // Assess
    await expect(recheck).rejects.toThrow('out of time');
    expect(heard).toEqual(['record:Renewals:C-1']);
    expect(searched).toEqual(['C-1', 'C-2']);
  });
});
