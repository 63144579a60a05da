/**
 * The reconciliation property: whatever the drift (users and records made by the integration or
 * by hand, edited, missing, extra; a roster with leavers; absent-means-leave on or off), one plan,
 * its apply through the bulk sender and the real handlers, and a drain leave the platform equal to
 * the scoped export for every managed entity (a data item no row of the export carries is kept),
 * while what was never ours is untouched (deletes
 * held because an agent worked a record go once a person allows their count). A second
 * plan then finds nothing to change. CI-sized by default; RECONCILE_PROPERTY_RUNS for a soak.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED_BY_AGENT } from '../../lambdas/reconcile/delete-gate';
import { hasChanges } from '../../lambdas/reconcile/plan';
import { InMemoryBackend } from '../../local/backends/in-memory';
import type { InputEvent } from '../../local/run/event-input';
import { runPipeline } from '../../local/run/pipeline';
import { applyLocally, localPlatformOn, planLocally } from '../../local/run/reconcile';
import type { LogSink } from '../../local/run/run-logger';
import { runSettingsFrom } from '../../local/run/run-settings';
import { type RunningSimulator, startSimulator } from '../../local/simulator';
import { scopesOf } from '../support/reconcile-scopes';
import { propertySeed, sizeFromEnv } from '../support/size-from-env';

const RUNS = sizeFromEnv('RECONCILE_PROPERTY_RUNS', 25);
const API_KEY = 'reconcile-property-key-0001';
const CAMPAIGN = 'Prop-Campaign';
const BEFORE = '2026-11-20T08:00:00.000Z';
const EXPORTED_AT = '2026-11-25T06:00:00.000Z';
const settings = runSettingsFrom({ allowedSources: ['crm', 'hr'] }, 'property');
const silent: LogSink = { write: () => {}, close: () => {} };

type Origin = 'none' | 'ours' | 'by-hand';
interface UserCase {
  readonly origin: Origin;
  readonly row: 'absent' | 'active' | 'leaver';
}

const value = fc.constantFrom('a', 'b', 'c');
const userCase = fc.record({
  origin: fc.constantFrom<Origin>('none', 'ours', 'by-hand'),
  row: fc.constantFrom('absent', 'active', 'leaver') as fc.Arbitrary<UserCase['row']>,
});
const recordCase = fc.record({
  origin: fc.constantFrom<Origin>('none', 'ours', 'by-hand'),
  before: value,
  /** Made by hand with a data item no row of the export carries: kept, not erased. */
  legacy: fc.boolean(),
  worked: fc.boolean(),
  row: fc.oneof(fc.constant('absent'), value),
});
const LEGACY = { key: 'Legacy', value: 'kept' };
const drift = fc.record({
  users: fc.array(userCase, { minLength: 1, maxLength: 6 }),
  records: fc.array(recordCase, { minLength: 1, maxLength: 6 }),
  absentMeansLeave: fc.boolean(),
});

const login = (i: number) => `u${i}@example.com`;
const clientId = (i: number) => `R-${i}`;
const data = (id: string, v: string) => [
  { key: 'CrmId', value: id },
  { key: 'Note', value: v },
];

let simulator: RunningSimulator;
beforeAll(async () => {
  simulator = await startSimulator({ ...settings.tenant, apiKey: API_KEY });
});
afterAll(async () => {
  await simulator?.close();
});

const csvOf = (rows: readonly string[][]) => `${rows.map((r) => r.join(',')).join('\n')}\n`;

const writeExport = async (
  folder: string,
  name: string,
  scope: string,
  kind: string,
  text: string,
) => {
  await writeFile(path.join(folder, name), text);
  await writeFile(
    path.join(folder, `${name}.manifest.json`),
    JSON.stringify({
      kind,
      scope,
      file: name,
      exportedAt: EXPORTED_AT,
      rowCount: text.trim().split('\n').length - 1,
      sha256: createHash('sha256').update(text).digest('hex'),
    }),
  );
  return `${name}.manifest.json`;
};

describe('reconciliation property', () => {
  it('platform = scoped export for managed entities, unmanaged untouched, then no changes', async () => {
    await fc.assert(
      fc.asyncProperty(drift, async ({ users, records, absentMeansLeave }) => {
        // Prepare: the drift
        simulator.reset();
        const backend = new InMemoryBackend(settings, API_KEY);
        const ours: InputEvent[] = [];
        users.forEach((u, i) => {
          if (u.origin === 'by-hand') {
            simulator.state.addUser({
              loginUserId: login(i),
              firstName: 'F',
              lastName: 'L',
              userTemplateName: 'T',
            });
          }
          if (u.origin === 'ours') {
            ours.push({
              file: 'seed',
              index: ours.length,
              format: 'eventbridge',
              source: 'hr',
              detailType: 'add-user',
              envelope: {},
              detail: {
                occurredAt: BEFORE,
                loginUserId: login(i),
                firstName: 'F',
                lastName: 'L',
                userTemplateName: 'T',
              },
            });
          }
        });
        records.forEach((r, i) => {
          if (r.origin === 'by-hand') {
            simulator.state.putRecord({
              campaignName: CAMPAIGN,
              clientId: clientId(i),
              previewRecordData: [...data(clientId(i), r.before), ...(r.legacy ? [LEGACY] : [])],
            });
          }
          if (r.origin === 'ours') {
            ours.push({
              file: 'seed',
              index: ours.length,
              format: 'eventbridge',
              source: 'crm',
              detailType: 'add-or-update-campaign-record',
              envelope: {},
              detail: {
                occurredAt: BEFORE,
                campaignName: CAMPAIGN,
                clientId: clientId(i),
                previewRecordData: data(clientId(i), r.before),
              },
            });
          }
        });
        await runPipeline({
          scenario: {
            origin: 'seed',
            phases: [{ file: 'seed', events: ours }],
            seed: { users: [] },
            expectations: undefined,
          },
          settings,
          backend,
          simulator,
          logSink: silent,
          faults: false,
        });
        records.forEach((r, i) => {
          const found = simulator.state.findByClientId(CAMPAIGN, clientId(i));
          if (r.worked && found !== undefined) {
            simulator.state.recordAttempt(
              CAMPAIGN,
              { clientId: clientId(i) },
              { agent: 'agent-1', workedState: 'COMPLETED' },
            );
          }
        });
        const platformBefore = new Map(
          records.map((_, i) => [
            clientId(i),
            simulator.state.findByClientId(CAMPAIGN, clientId(i))?.previewRecordData,
          ]),
        );
        const folder = await mkdtemp(path.join(tmpdir(), 'reconcile-prop-'));
        const userRows = users.flatMap((u, i) =>
          u.row === 'absent'
            ? []
            : [[login(i), 'F', 'L', 'T', u.row === 'leaver' ? 'terminated' : 'active']],
        );
        const recordRows = records.flatMap((r, i) =>
          r.row === 'absent' ? [] : [[CAMPAIGN, clientId(i), clientId(i), r.row]],
        );
        const scopes = scopesOf({
          people: {
            kind: 'users',
            covers: { loginUserIdDomains: ['example.com'] },
            absentMeansLeave,
            deleteGate: { count: 100, percent: 0 },
          },
          leads: {
            kind: 'records',
            campaigns: [CAMPAIGN],
            splitKeys: ['CrmId'],
            deleteGate: { count: 100, percent: 0 },
          },
        });
        const local = localPlatformOn({
          simulator,
          settings,
          apiKey: API_KEY,
          scopes,
          folder,
          backend,
          logSink: silent,
        });
        const manifests = [
          ...(userRows.length > 0
            ? [
                await writeExport(
                  folder,
                  'people.csv',
                  'people',
                  'users',
                  csvOf([
                    ['loginUserId', 'firstName', 'lastName', 'userTemplateName', 'status'],
                    ...userRows,
                  ]),
                ),
              ]
            : []),
          ...(recordRows.length > 0
            ? [
                await writeExport(
                  folder,
                  'leads.csv',
                  'leads',
                  'records',
                  csvOf([['campaignName', 'clientId', 'data.CrmId', 'data.Note'], ...recordRows]),
                ),
              ]
            : []),
        ];

        // Act
        for (const manifest of manifests) {
          const { plan, planPath } = await planLocally(local, manifest);
          if (hasChanges(plan)) {
            const result = await applyLocally(local, plan, planPath);
            expect(result.fates.filter((f) => f.kind !== 'applied')).toEqual([]);
            // Inside the gate, only a delete of a record an agent worked holds the deletes: the
            // apply leaves every one of them, until a person allows the plan's count.
            const deletes = plan.entries.filter((e) => e.category === 'delete');
            expect(plan.deletes.held).toBe(deletes.some((e) => e.reason === WORKED_BY_AGENT));
            if (plan.deletes.held) {
              for (const entry of deletes) {
                const id = entry.entity.split(':').at(-1) ?? '';
                expect(simulator.state.findByClientId(CAMPAIGN, id), entry.entity).toBeDefined();
              }
              // The bulk sender's checkpoint beside the plan skips the creates and updates the
              // first apply sent (the local run reports them as never received): only the
              // deletes are this apply's own.
              const allowed = await applyLocally(local, plan, planPath, {
                allowDeletes: plan.deletes.count,
              });
              expect(
                allowed.fates.filter(
                  (f) => f.action === 'delete-campaign-record' && f.kind !== 'applied',
                ),
              ).toEqual([]);
            }
          }
        }
        const again = await Promise.all(manifests.map((m) => planLocally(local, m)));

        // Assess
        users.forEach((u, i) => {
          const exists = simulator.state.findUser(login(i)) !== undefined;
          if (userRows.length === 0) return; // no export of the scope: nothing planned
          const want =
            u.origin === 'by-hand'
              ? true // never ours: untouched
              : u.row === 'active'
                ? true
                : u.row === 'leaver'
                  ? false
                  : u.origin === 'ours' && !absentMeansLeave;
          expect(
            exists,
            `user ${i} ${JSON.stringify(u)} absentMeansLeave=${absentMeansLeave}`,
          ).toBe(want);
        });
        records.forEach((r, i) => {
          const found = simulator.state.findByClientId(CAMPAIGN, clientId(i));
          if (recordRows.length === 0) return;
          if (r.row !== 'absent') {
            const kept = r.origin === 'by-hand' && r.legacy ? [LEGACY.value] : [];
            expect(
              found?.previewRecordData.filter((d) => d.key !== 'Id').map((d) => d.value),
              `record ${i}`,
            ).toEqual([clientId(i), r.row, ...kept]);
          } else if (r.origin === 'by-hand') {
            expect(found?.previewRecordData, `record ${i} untouched`).toEqual(
              platformBefore.get(clientId(i)),
            );
          } else {
            expect(found, `record ${i} ${JSON.stringify(r)}`).toBeUndefined();
          }
        });
        for (const run of again) expect(hasChanges(run.plan), run.plan.planId).toBe(false);
      }),
      { numRuns: RUNS, seed: propertySeed(20261127), endOnFailure: true },
    );
  });
});
