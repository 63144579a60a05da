/**
 * A users plan considers, and may delete, only the users its scope covers: two rosters that
 * each read absence as leaving delete only their own, and a user whose owner cannot be decided
 * (a live event made it, both rules may match) has its delete held with both scopes named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userKey } from '../../../lambdas/core/ledger/entity-key';
import { eventVersion } from '../../../lambdas/core/ledger/event-version';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { ENTITY_KINDS } from '../../../lambdas/entities';
import { inMemoryLedgerItems, LedgerItemView } from '../../../lambdas/reconcile/ledger-item-view';
import type { LedgerView } from '../../../lambdas/reconcile/ledger-view';
import { buildPlan, type Plan } from '../../../lambdas/reconcile/plan';
import type { ReconcileScope, UsersScope } from '../../../lambdas/reconcile/scope';
import type { Snapshot, UserRow } from '../../../lambdas/reconcile/snapshot';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { localPlatformReader } from '../../../testkit';
import { scopesOf } from '../../support/reconcile-scopes';
import { TEST_TENANT } from '../../support/test-tenant';
import { expectSkippedAsNewer, LIVE_EVENTS, withNewestEventsAt } from './plan-fixture';
import { leavingRoster, STAFF_AND_VENDOR } from './scope-fixtures';

const API_KEY = 'plan-coverage-key-000001';
const CREATED = Date.parse('2026-11-20T08:00:00.000Z');
let simulator: RunningSimulator;

beforeAll(async () => {
  simulator = await startSimulator({ ...TEST_TENANT, apiKey: API_KEY });
});
afterAll(async () => {
  await simulator?.close();
});

/** A roster of `scope` listing `active` users (template `template`), each on its own line. */
const roster = (scope: UsersScope, active: readonly string[], template = 'Agent'): Snapshot => ({
  kind: 'users',
  id: 'abc',
  scope,
  manifest: {
    kind: 'users',
    scope: scope.name,
    file: `${scope.name}.csv`,
    format: 'csv',
    exportedAt: '2026-11-25T06:00:00.000Z',
    rowCount: active.length,
    sha256: 'a'.repeat(64),
  },
  rows: active.map(
    (loginUserId, index): UserRow => ({
      line: index + 2,
      loginUserId,
      leaver: false,
      userTemplateName: template,
      message: { loginUserId, firstName: 'F', lastName: 'L', userTemplateName: template },
    }),
  ),
});

/** The ledger's item of a user this integration created, as the live path leaves it. */
const userCreatedByUs = (loginUserId: string) => {
  const v = eventVersion(CREATED, 'add', 'f'.repeat(16));
  return {
    schema: ENTITY_KINDS.user.parts.schema,
    kind: 'user',
    id: { loginUserId },
    events: [],
    known: {
      place: { user: { origin: 'ours', born: v, at: v } },
      base: { stage: 'written-unseen' },
    },
  };
};

/**
 * The platform holds each user, created by this integration: the ledger's items say so, read
 * through the view a deployment plans with.
 */
const createdByUs = async (
  users: readonly { login: string; template: string }[],
): Promise<LedgerView> => {
  simulator.reset();
  const store = new InMemoryLedgerStore();
  for (const { login, template } of users) {
    simulator.state.addUser({
      loginUserId: login,
      firstName: 'F',
      lastName: 'L',
      userTemplateName: template,
    });
    const key = userKey(login);
    await store.claim(key, { token: 'seed', until: 0, eventKey: 'seed' }, 0);
    await store.commit(key, 'seed', userCreatedByUs(login));
  }
  return new LedgerItemView({ items: inMemoryLedgerItems(store) });
};

const plan = (
  snapshot: Snapshot,
  ledger: LedgerView,
  scopes: Readonly<Record<string, ReconcileScope>>,
): Promise<Plan> =>
  buildPlan({
    snapshot,
    reader: localPlatformReader({ ...TEST_TENANT, baseUrl: simulator.baseUrl, apiKey: API_KEY }),
    ledger,
    scopes,
    now: Date.parse('2026-11-25T08:00:00.000Z'),
  });

/** The plan of scope `name`'s roster listing `active` users. */
const planOf = (
  scopes: Readonly<Record<string, ReconcileScope>>,
  name: string,
  active: readonly string[],
  ledger: LedgerView,
): Promise<Plan> => plan(roster(scopes[name] as UsersScope, active), ledger, scopes);

const byCategory = (result: Plan, category: string) =>
  result.entries.filter((e) => e.category === category).map((e) => e.entity);

describe('users plan: only what the scope covers', () => {
  it('two rosters reading absence as leaving in one deployment each delete only their own', async () => {
    // Prepare: staff and vendor users, a user no scope covers; one leaver of each roster
    const scopes = scopesOf(STAFF_AND_VENDOR);
    const ledger = await createdByUs([
      { login: 'ann@corp.example', template: 'Agent' },
      { login: 'al.leaver@corp.example', template: 'Agent' },
      { login: 'vic@vendor.example', template: 'Agent' },
      { login: 'val.leaver@vendor.example', template: 'Agent' },
      { login: 'nobody@elsewhere.example', template: 'Agent' },
    ]);

    // Act
    const staffPlan = await planOf(scopes, 'staff', ['ann@corp.example'], ledger);
    const vendorPlan = await planOf(scopes, 'vendor', ['vic@vendor.example'], ledger);

    // Assess
    expect(byCategory(staffPlan, 'delete')).toEqual(['user:al.leaver@corp.example']);
    expect(byCategory(vendorPlan, 'delete')).toEqual(['user:val.leaver@vendor.example']);
    for (const result of [staffPlan, vendorPlan]) {
      expect(result.deletes.held).toBe(false);
      expect(result.entries.map((e) => e.entity)).not.toContain('user:nobody@elsewhere.example');
    }
    expect(staffPlan.entries.map((e) => e.entity)).not.toContain('user:vic@vendor.example');
  });

  it('holds the delete of a user a live event made whom both rules may match, naming both scopes', async () => {
    // Prepare: one domain, two templates; the user's template is in no roster row
    const scopes = scopesOf({
      agents: leavingRoster({ loginUserIdDomains: ['corp.example'], userTemplateNames: ['Agent'] }),
      supervisors: leavingRoster({
        loginUserIdDomains: ['corp.example'],
        userTemplateNames: ['Supervisor'],
      }),
    });
    const ledger = await createdByUs([
      { login: 'ann@corp.example', template: 'Agent' },
      { login: 'live@corp.example', template: 'Supervisor' },
    ]);

    // Act
    const result = await planOf(scopes, 'agents', ['ann@corp.example'], ledger);

    // Assess
    const entry = result.entries.find((e) => e.entity === 'user:live@corp.example');
    expect(entry).toMatchObject({
      category: 'delete',
      reason: 'OWNER_AMBIGUOUS',
      scopes: ['agents', 'supervisors'],
    });
    expect(result.deletes.held).toBe(true);
    expect(result.deletes.heldBecause).toContain(
      '1 of the deletes is of a user whose scope cannot be decided, never guessed (user:live@corp.example: scopes agents, supervisors)',
    );
  });

  it('holds a leaver row of a roster without a rule when another scope covers the user', async () => {
    // Prepare: the HR roster (no rule) names a vendor user as a leaver
    const scopes = scopesOf({
      hr: { kind: 'users' },
      vendor: { kind: 'users', covers: { loginUserIdDomains: ['vendor.example'] } },
    });
    const ledger = await createdByUs([{ login: 'vic@vendor.example', template: 'Agent' }]);
    const snapshot = roster(scopes.hr as UsersScope, []);
    const leaver: UserRow = {
      line: 2,
      loginUserId: 'vic@vendor.example',
      leaver: true,
      message: undefined,
    };

    // Act
    const result = await plan({ ...snapshot, rows: [leaver] } as Snapshot, ledger, scopes);

    // Assess
    expect(result.entries).toEqual([
      expect.objectContaining({
        entity: 'user:vic@vendor.example',
        category: 'delete',
        reason: 'OWNER_AMBIGUOUS',
        scopes: ['hr', 'vendor'],
      }),
    ]);
    expect(result.deletes.held).toBe(true);
  });

  it('holds the delete of a user beyond its rows whose template its rule needs and no row shows', async () => {
    // Prepare: one scope only, its rule on the template too
    const scopes = scopesOf({
      agents: leavingRoster({ loginUserIdDomains: ['corp.example'], userTemplateNames: ['Agent'] }),
    });
    const ledger = await createdByUs([
      { login: 'ann@corp.example', template: 'Agent' },
      { login: 'unsure@corp.example', template: 'Agent' },
    ]);

    // Act
    const result = await planOf(scopes, 'agents', ['ann@corp.example'], ledger);

    // Assess
    expect(result.entries.find((e) => e.entity === 'user:unsure@corp.example')).toMatchObject({
      category: 'delete',
      reason: 'OWNER_AMBIGUOUS',
      scopes: ['agents'],
    });
    expect(result.deletes.held).toBe(true);
  });

  it('a scope without a rule considers no user of the ledger beyond its rows', async () => {
    // Prepare
    const scopes = scopesOf({ hr: { kind: 'users' } });
    const ledger = await createdByUs([
      { login: 'ann@corp.example', template: 'Agent' },
      { login: 'other@corp.example', template: 'Agent' },
    ]);

    // Act
    const result = await planOf(scopes, 'hr', ['ann@corp.example'], ledger);

    // Assess
    expect(result.entries.map((e) => [e.entity, e.category])).toEqual([
      ['user:ann@corp.example', 'in-sync'],
    ]);
  });
});

describe('users plan: a live event newer than the export', () => {
  it.each(LIVE_EVENTS)(
    'at $liveEventAt (export 06:00) skips every change: $skipped',
    async ({ liveEventAt, skipped }) => {
      // Prepare: ann listed and there, neo listed and absent (a create), al not listed (a delete)
      const scopes = scopesOf(STAFF_AND_VENDOR);
      const ledger = await createdByUs([
        { login: 'ann@corp.example', template: 'Agent' },
        { login: 'al.leaver@corp.example', template: 'Agent' },
      ]);

      // Act
      const result = await planOf(
        scopes,
        'staff',
        ['ann@corp.example', 'neo@corp.example'],
        withNewestEventsAt(ledger, liveEventAt),
      );

      // Assess
      const changes = result.entries.filter((e) => e.category !== 'in-sync');
      expect(changes.map((e) => [e.entity, e.category])).toEqual(
        skipped
          ? [
              ['user:al.leaver@corp.example', 'skipped'],
              ['user:neo@corp.example', 'skipped'],
            ]
          : [
              ['user:neo@corp.example', 'create'],
              ['user:al.leaver@corp.example', 'delete'],
            ],
      );
      expectSkippedAsNewer(changes, skipped);
    },
  );
});
