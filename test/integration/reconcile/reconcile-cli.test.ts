/**
 * `npm run ops -- reconcile plan / apply` end to end: the ops CLI against moto (queues, bus,
 * ledger table, secret) and the platform simulator over its socket, the repairs drained by the
 * real handlers with the ledger on moto's DynamoDB. One drift, planned, refused where it must
 * be, applied, drained and planned again; each `it` builds on the one before.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerTable } from '../../../lambdas/core/aws/ledger-table';
import {
  DynamoDbRunHistory,
  RUN_HISTORY_KEY_PREFIX,
} from '../../../lambdas/reconcile/dynamodb-run-history';
import { parsePlan, planDigest } from '../../../lambdas/reconcile/plan-file';
import { parseRunRecord } from '../../../lambdas/reconcile/run-history-items';
import { loadConfig } from '../../../lib/config';
import { LEDGER_TABLE_OUTPUT_KEY } from '../../../lib/stack-outputs';
import { EMULATOR_RETRY_SCHEDULE, EmulatorBackend } from '../../../local/backends/aws-emulator';
import type { Scenario } from '../../../local/run/event-input';
import { runPipeline } from '../../../local/run/pipeline';
import { seedDrift } from '../../../local/run/reconcile';
import { SMALL_CAMPAIGN } from '../../../local/run/reconcile-drift';
import { fileLogSink, type LogSink } from '../../../local/run/run-logger';
import { loadRunSettings, withRetrySchedule } from '../../../local/run/run-settings';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { openDeployment } from '../../../ops/deployment';
import { runReconcilePlan } from '../../../ops/reconcile/reconcile-plan';
import { motoEndpoint, TEST_CREDENTIALS, uniqueName } from '../../support/aws-clients';
import { motoLedgerClient } from '../../support/ledger-table';
import { CapturedWriter, runOpsCaptured } from '../../support/ops-run';
import { scopesOf } from '../../support/reconcile-scopes';
import { REPO_ROOT } from '../../support/repo-paths';
import { createdByUs as createdByUsIn } from './created-by-us';

const settings = withRetrySchedule(
  loadRunSettings(path.join(REPO_ROOT, 'config', 'example.json')),
  EMULATOR_RETRY_SCHEDULE,
);
const config = loadConfig('example');
const API_KEY = 'reconcile-cli-test-key-0001';
const LATER = '2026-11-26T09:00:00.000Z';

let simulator: RunningSimulator;
let backend: EmulatorBackend;
let logSink: LogSink;
let folder = '';
let args: string[] = [];

/** Runs `scenario` through the handlers on this file's backend and simulator, without faults. */
const runScenario = (scenario: Scenario) =>
  runPipeline({ scenario, settings, backend, simulator, logSink, faults: false });

const drain = () =>
  runScenario({
    origin: 'drain',
    phases: [{ file: 'drain', events: [] }],
    seed: { users: [] },
    expectations: undefined,
  });

const ops = (...argv: string[]) => runOpsCaptured([...argv, ...args]);
/** `reconcile plan|apply` with the platform at the simulator. */
const onSimulator = (verb: 'plan' | 'apply', file: string) =>
  ops('reconcile', verb, file, '--platform-url', simulator.baseUrl);
const manifest = (name: string) => path.join(folder, `${name}.manifest.json`);
const planOf = (name: string) => path.join(folder, `${name}.plan.jsonl`);

/** An export and its manifest; `manifestChange` edits the manifest after it is made. */
const writeExport = async (
  name: string,
  text: string,
  scope: string,
  kind: string,
  change: Record<string, unknown> = {},
) => {
  const { createHash } = await import('node:crypto');
  await writeFile(path.join(folder, name), text);
  const rows = text.split('\n').filter((l) => l.trim() !== '').length - 1;
  await writeFile(
    manifest(name),
    JSON.stringify({
      kind,
      scope,
      file: name,
      // Newer than the snapshot the drift tests apply, which an older one could not follow.
      exportedAt: '2026-11-26T12:00:00.000Z',
      rowCount: rows,
      sha256: createHash('sha256').update(text).digest('hex'),
      ...change,
    }),
  );
  return manifest(name);
};

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'reconcile-cli-'));
  logSink = fileLogSink(path.join(folder, 'handlers.log'));
  simulator = await startSimulator({
    ...settings.tenant,
    apiKey: API_KEY,
    secretsRegion: settings.secretsRegion,
  });
  backend = await EmulatorBackend.create({ endpoint: motoEndpoint(), settings, apiKey: API_KEY });
  // The CLI reads the API key from the config's secret, as an operator's machine would.
  const secrets = new SecretsManagerClient({
    endpoint: motoEndpoint(),
    region: config.apiKey.secretsRegion,
    credentials: { ...TEST_CREDENTIALS },
  });
  try {
    await secrets.send(
      new CreateSecretCommand({ Name: config.apiKey.secretId, SecretString: API_KEY }),
    );
  } catch (error) {
    if (!(error instanceof ResourceExistsException)) throw error;
    await secrets.send(
      new PutSecretValueCommand({ SecretId: config.apiKey.secretId, SecretString: API_KEY }),
    );
  }
  const stack = uniqueName('reconcile-stack');
  const outputsFile = path.join(folder, 'outputs.json');
  await writeFile(outputsFile, JSON.stringify({ [stack]: backend.outputs }));
  args = ['--config', 'example', '--stack', stack, '--outputs-file', outputsFile];

  await seedDrift({ settings, backend, simulator, logSink, folder });
}, 120_000);

afterAll(async () => {
  logSink?.close();
  await backend?.close();
  await simulator?.close();
});

const record = (clientId: string) => simulator.state.findByClientId(SMALL_CAMPAIGN, clientId);
const nameOf = (clientId: string) =>
  record(clientId)?.previewRecordData.find((i) => i.key === 'Name')?.value;

/** The refusals the run history holds for `scope`, each item parsed as the history reads it. */
const refusalsNoted = async (scope: string) => {
  const tableName = backend.outputs[LEDGER_TABLE_OUTPUT_KEY] ?? '';
  const table = new LedgerTable({ tableName, client: motoLedgerClient() });
  const found = [];
  for await (const item of table.scan(`${RUN_HISTORY_KEY_PREFIX}run#${scope}#`)) {
    const run = parseRunRecord(item.doc?.S ?? '', item.pk?.S ?? '');
    if (run.status === 'refused') found.push(run.refusal);
  }
  return found;
};

/**
 * Notes a plan file made here as its run, with its digest, as `reconcile plan` notes the file it
 * writes (apply refuses a plan file its run did not note).
 */
const noteAsPlanned = async (file: string): Promise<void> => {
  const text = await readFile(file, 'utf8');
  const plan = parsePlan(text);
  const tableName = backend.outputs[LEDGER_TABLE_OUTPUT_KEY] ?? '';
  await new DynamoDbRunHistory({ tableName, client: motoLedgerClient() }).record({
    runId: plan.planId,
    scope: plan.scope,
    status: 'planned',
    at: plan.createdAt,
    planLocation: file,
    planSha256: planDigest(text),
  });
};

/**
 * A fresh plan of one delete (after `others`, entries of other categories), under the header of
 * the plan `from` wrote (a plan id of its own), its counts made to match (apply refuses a header
 * that differs from its entries), and noted as planned. `held`: the gate's verdict.
 */
const oneDeletePlan = async (
  name: string,
  from: string,
  held: boolean,
  entry: (exportedAt: string) => object,
  others: (exportedAt: string) => readonly { readonly category: string }[] = () => [],
): Promise<string> => {
  const [line = '{}'] = (await readFile(planOf(from), 'utf8')).split('\n');
  const head = JSON.parse(line);
  const entries = [...others(head.snapshot.exportedAt), entry(head.snapshot.exportedAt)];
  const counts = Object.fromEntries(Object.keys(head.counts).map((c) => [c, 0]));
  for (const e of entries) {
    const category = (e as { category: string }).category;
    counts[category] = (counts[category] ?? 0) + 1;
  }
  const deletes = { ...head.deletes, count: 1, held, heldBecause: held ? ['test'] : [] };
  const file = path.join(folder, `${name}.plan.jsonl`);
  const header = {
    ...head,
    planId: `${head.planId}-${name}`,
    createdAt: new Date().toISOString(),
    counts,
    deletes,
    entryCount: entries.length,
  };
  await writeFile(file, `${[header, ...entries].map((e) => JSON.stringify(e)).join('\n')}\n`);
  await noteAsPlanned(file);
  return file;
};

/** Users on the platform that the ledger shows this integration created (by live events). */
const createdByUs = (logins: readonly string[]) =>
  createdByUsIn(
    { tableName: backend.outputs[LEDGER_TABLE_OUTPUT_KEY] ?? '', simulator },
    (login) => ({
      loginUserId: login,
      firstName: 'C',
      lastName: 'V',
      userTemplateName: 'Agent-Standard',
    }),
    logins,
  );

/**
 * A users export `name` of `scope` listing only `listed` (with `template`), after the ledger is
 * made to show both `listed` and `gone` as users this integration created.
 */
const rosterOfOurs = async (
  name: string,
  scope: string,
  users: { readonly listed: string; readonly template: string; readonly gone: string },
) => {
  await createdByUs([users.listed, users.gone]);
  return writeExport(
    name,
    `loginUserId,firstName,lastName,userTemplateName\n${users.listed},C,V,${users.template}\n`,
    scope,
    'users',
  );
};

/** A plan entry deleting the hand-made C-2900 (allowed by the plan: not held). */
const deleteOfC2900 = (correlationId: string) => (occurredAt: string) => ({
  entity: `record:${SMALL_CAMPAIGN}:C-2900`,
  category: 'delete',
  reason: 'UNMANAGED_DELETE_ALLOWED',
  repair: {
    action: 'delete-campaign-record',
    message: { campaignName: SMALL_CAMPAIGN, clientId: 'C-2900', correlationId, occurredAt },
  },
});

/** A plan of the records export deleting C-2900 (not held), after `others`, named `name`. */
const deleteOfC2900Plan = (
  name: string,
  others?: (exportedAt: string) => readonly { readonly category: string }[],
) => oneDeletePlan(name, 'crm-renewals.csv', false, deleteOfC2900(`${name}-test`), others);

describe('reconcile plan / apply against moto and the simulator', () => {
  it('plans each drift case and exits 2 (changes), writing a plan and a report without data values', async () => {
    // Act
    const users = await onSimulator('plan', manifest('hr-roster.csv'));
    const records = await onSimulator('plan', manifest('crm-renewals.csv'));

    // Assess
    expect(users.code, users.stderr).toBe(2);
    expect(records.code, records.stderr).toBe(2);
    expect(users.stdout).toMatch(/create +1\n +user:nina\.new@example\.com/);
    expect(users.stdout).toMatch(/delete +1\n +user:leo\.leaver@example\.com/);
    expect(users.stdout).toMatch(
      /unmanaged +1\n +user:ursula\.unmanaged@example\.com +\(LEAVER_NOT_CREATED_BY_US/,
    );
    expect(users.stdout).toMatch(
      /conflict +1\n +user:sam\.supervisor@example\.com +\(USER_EXISTS_NOT_OURS/,
    );
    expect(records.stdout).toMatch(/create +1\n +record:Spring-Renewals:C-2004/);
    expect(records.stdout).toContain('record:Spring-Renewals:C-2001  (data.Name; line 2)');
    expect(records.stdout).toMatch(/delete +1\n +record:Spring-Renewals:C-2002/);
    expect(records.stdout).toMatch(/unmanaged +1\n +record:Spring-Renewals:C-2900/);
    expect(records.stdout).toContain('record:Spring-Renewals:C-2005  (NEWER_EVENT; line 5)');
    expect(records.stdout).toMatch(
      /sweep Bulk-Intake: 1200 records in \d+ searches, split on CrmId, complete/,
    );
    const report = await readFile(path.join(folder, 'crm-renewals.csv.report.jsonl'), 'utf8');
    expect(report).toContain('"category":"update"');
    expect(report).not.toContain('Ada');
    expect(report).not.toContain('+1202555');
  });

  it('refuses a plan older than reconcile.planMaxAgeHours', async () => {
    // Prepare
    const [head = '', ...rest] = (await readFile(planOf('hr-roster.csv'), 'utf8')).split('\n');
    const old = JSON.parse(head);
    const made = { ...old, planId: `${old.planId}-stale`, createdAt: '2026-01-01T00:00:00.000Z' };
    const stale = path.join(folder, 'stale.plan.jsonl');
    await writeFile(stale, [JSON.stringify(made), ...rest].join('\n'));
    await noteAsPlanned(stale);

    // Act
    const run = await ops('reconcile', 'apply', stale);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Refused \(STALE_PLAN\): plan .* was made .* h ago, more than 24 h/);
  });

  it.each([
    [
      'PLAN_ALTERED',
      'a plan file edited since it was written (its delete gate raised)',
      (head: { planId: string }) => head,
      /Refused \(PLAN_ALTERED\): the plan file is not the one plan .* wrote \(its SHA-256 differs/,
    ],
    [
      'NOT_RECORDED',
      'a plan file whose run this deployment never noted',
      (head: { planId: string }) => ({ ...head, planId: 'made-elsewhere' }),
      /Refused \(NOT_RECORDED\): plan made-elsewhere is not in this deployment's run history/,
    ],
  ])('refuses (%s) %s, sending nothing', async (code, _name, change, refusal) => {
    // Prepare: the users plan, its header's gate raised as a hand that wanted more deletes to go
    // without --allow-deletes would edit it (the header still agrees with its entries, which is
    // all the file's own check can see)
    const [head = '', ...rest] = (await readFile(planOf('hr-roster.csv'), 'utf8')).split('\n');
    const parsed = JSON.parse(head);
    const edited = change({ ...parsed, deletes: { ...parsed.deletes, gate: 1000 } });
    const file = path.join(folder, `edited-${code}.plan.jsonl`);
    await writeFile(file, [JSON.stringify(edited), ...rest].join('\n'));
    const requestsBefore = simulator.stats.requests;

    // Act
    const run = await ops('reconcile', 'apply', file);
    await drain();

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(refusal);
    expect(simulator.stats.requests).toBe(requestsBefore);
    expect(simulator.state.findUser('nina.new@example.com')).toBeUndefined();
  });

  it('applies both plans; a live event newer than the export wins over its repair', async () => {
    // Prepare: after the plan, the CRM changes C-2001 again (the plan still holds its repair).
    await runScenario({
      origin: 'live',
      phases: [
        {
          file: 'live',
          events: [
            {
              file: 'live',
              index: 0,
              format: 'eventbridge',
              source: 'com.examplecorp.crm',
              detailType: 'add-or-update-campaign-record',
              detail: {
                occurredAt: LATER,
                campaignName: SMALL_CAMPAIGN,
                clientId: 'C-2001',
                previewRecordData: [
                  { key: 'CrmId', value: 'C-2001' },
                  { key: 'Name', value: 'Ada Live' },
                ],
              },
              envelope: {},
            },
          ],
        },
      ],
      seed: { users: [] },
      expectations: undefined,
    });

    // Act
    const users = await ops('reconcile', 'apply', planOf('hr-roster.csv'));
    const records = await onSimulator('apply', planOf('crm-renewals.csv'));
    const drained = await drain();

    // Assess
    expect(users.code, users.stderr).toBe(0);
    expect(records.code, records.stderr).toBe(0);
    expect(records.stdout).toMatch(/add-or-update-campaign-record +3 repairs: sent 3/);
    const codes = drained.fates.map((f) => f.code).sort();
    expect(codes).toContain('STALE_SKIPPED');
    expect(drained.fates.every((f) => f.kind === 'applied')).toBe(true);
    expect(simulator.state.findUser('nina.new@example.com')).toBeDefined();
    expect(simulator.state.findUser('leo.leaver@example.com')).toBeUndefined();
    expect(simulator.state.findUser('ursula.unmanaged@example.com')).toBeDefined();
    expect(record('C-2004')).toBeDefined();
    expect(record('C-2002')).toBeUndefined();
    expect(record('C-2900')).toBeDefined();
    expect(nameOf('C-2001')).toBe('Ada Live');
    expect(nameOf('C-2005')).toBe('Di Live');
  });

  it('a second apply sends nothing, and a second plan finds no changes (exit 0)', async () => {
    // Act
    const again = await onSimulator('apply', planOf('crm-renewals.csv'));
    const users = await onSimulator('plan', manifest('hr-roster.csv'));
    const records = await onSimulator('plan', manifest('crm-renewals.csv'));

    // Assess
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Applied plan .*: 0 repairs sent now, 4 by an earlier apply/);
    expect(users.code, users.stdout).toBe(0);
    expect(records.code, records.stdout).toBe(0);
    expect(records.stdout).toContain('No changes');
    expect(records.stdout).toContain('record:Spring-Renewals:C-2001  (NEWER_EVENT; line 2)');
  });

  it('holds deletes beyond the gate whole until --allow-deletes names their count', async () => {
    // Prepare: a plan whose one delete is held (as a gate would hold it)
    const held = await oneDeletePlan('held', 'hr-roster.csv', true, (occurredAt) => ({
      entity: 'user:una.stays@example.com',
      category: 'delete',
      repair: {
        action: 'delete-user',
        message: { loginUserId: 'una.stays@example.com', correlationId: 'gate-test', occurredAt },
      },
    }));

    // Act
    const without = await ops('reconcile', 'apply', held);
    const wrong = await ops('reconcile', 'apply', held, '--allow-deletes', '2');
    await drain();
    const stillThere = simulator.state.findUser('una.stays@example.com');
    const named = await ops('reconcile', 'apply', held, '--allow-deletes', '1');
    await drain();

    // Assess
    expect(without.code).toBe(3);
    expect(without.stdout.trim().split('\n').at(-1)).toBe(
      `HELD 1 delete (test): check them in the plan, then release them: npm run ops -- reconcile apply ${held} --allow-deletes 1 ${args.join(' ')}`,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('Refused (DELETE_COUNT)');
    expect(stillThere).toBeDefined();
    expect(named.code, named.stderr).toBe(0);
    expect(simulator.state.findUser('una.stays@example.com')).toBeUndefined();
  });

  it('holds every delete when an agent has worked a record to delete since the plan', async () => {
    // Prepare: a plan deleting the hand-made C-2900 (allowed by the plan, not held), which an
    // agent then works before the apply
    const worked = await deleteOfC2900Plan('worked');
    simulator.state.recordAttempt(SMALL_CAMPAIGN, { clientId: 'C-2900' }, { agent: 'agent-7' });

    // Act
    const run = await onSimulator('apply', worked);
    await drain();

    // Assess
    expect(run.code, run.stderr).toBe(3);
    expect(run.stdout.trim().split('\n').at(-1)).toContain(
      `HELD 1 delete (WORKED_BY_AGENT: an agent has worked 1 record to delete since the plan, first record:${SMALL_CAMPAIGN}:C-2900): this plan cannot release them; plan the snapshot`,
    );
    expect(record('C-2900')).toBeDefined();
  });

  it('refuses a plan whose hold was cleared by hand in the same Refused (<CODE>) form (exit 1)', async () => {
    // Prepare: a worked delete, held as planned; then its hold and reasons edited away
    const cleared = await oneDeletePlan('cleared', 'crm-renewals.csv', true, (occurredAt) => ({
      ...deleteOfC2900('cleared-test')(occurredAt),
      reason: 'WORKED_BY_AGENT',
    }));
    const planned = await readFile(cleared, 'utf8');
    await writeFile(
      cleared,
      planned
        .replace('"held":true', '"held":false')
        .replace(/"heldBecause":\[[^\]]*\]/, '"heldBecause":[]'),
    );

    // Act
    const run = await ops('reconcile', 'apply', cleared);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Refused (PLAN_ALTERED): ${cleared}: deletes.held: the header says false, yet 1 of the deletes is WORKED_BY_AGENT (a record agents have worked)`,
    );
    expect(record('C-2900')).toBeDefined();
  });

  it('a roster reading absence as leaving deletes only the users its scope covers', async () => {
    // Prepare: contractors a live event made (ledger: ours), one still listed, one gone; the HR
    // users this integration made (una) are absent from the contractors' roster
    const file = await rosterOfOurs('contractors.csv', 'vendor-contractors', {
      listed: 'cara@contractors.example.com',
      template: 'Agent-Standard',
      gone: 'carl@contractors.example.com',
    });

    // Act
    const planned = await onSimulator('plan', file);
    const applied = await ops('reconcile', 'apply', planOf('contractors.csv'));
    await drain();

    // Assess
    expect(planned.code, planned.stderr).toBe(2);
    const plan = parsePlan(await readFile(planOf('contractors.csv'), 'utf8'));
    expect(plan.entries.map((e) => [e.entity, e.category])).toEqual([
      ['user:carl@contractors.example.com', 'delete'],
      ['user:cara@contractors.example.com', 'in-sync'],
    ]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(simulator.state.findUser('carl@contractors.example.com')).toBeUndefined();
    expect(simulator.state.findUser('nina.new@example.com')).toBeDefined();
  });

  it('holds the delete of a user two scopes may cover, naming both, and apply exits 3', async () => {
    // Prepare: a deployment whose two desk rosters share a domain and split it by template
    // (the example config has no such pair; the plan command runs with it, as with --config)
    const desk = (template: string) => ({
      kind: 'users',
      covers: { loginUserIdDomains: ['desk.example.com'], userTemplateNames: [template] },
      absentMeansLeave: true,
    });
    const scopes = scopesOf({ 'desk-agents': desk('Agent'), 'desk-leads': desk('Lead') });
    const file = await rosterOfOurs('desk.csv', 'desk-agents', {
      listed: 'dee@desk.example.com',
      template: 'Agent',
      gone: 'live@desk.example.com',
    });
    const deployment = openDeployment({
      configName: 'example',
      stackName: args[3],
      outputsFile: args[5],
    });
    const [stdout, stderr] = [new CapturedWriter(), new CapturedWriter()];

    // Act
    const planned = await runReconcilePlan(
      {
        ...deployment,
        config: { ...config, reconcile: { ...config.reconcile, scopes } },
      },
      { manifest: file, platformUrl: simulator.baseUrl },
      { stdout, stderr },
    );
    const applied = await ops('reconcile', 'apply', planOf('desk.csv'));
    await drain();

    // Assess
    expect(planned, stderr.text).toBe(2);
    expect(stdout.text).toContain(
      'user:live@desk.example.com  (OWNER_AMBIGUOUS; scopes desk-agents, desk-leads)',
    );
    expect(stdout.text).toContain(
      'deletes HELD: 1 of the deletes is of a user whose scope cannot be decided, never guessed (user:live@desk.example.com: scopes desk-agents, desk-leads)',
    );
    expect(applied.code, applied.stderr).toBe(3);
    expect(applied.stdout.trim().split('\n').at(-1)).toMatch(
      /^HELD 1 delete \(1 of the deletes is of a user whose scope cannot be decided.*\): check them in the plan, then release them: npm run ops -- reconcile apply \S+desk\.csv\.plan\.jsonl --allow-deletes 1 --config example/,
    );
    expect(simulator.state.findUser('live@desk.example.com')).toBeDefined();
  });

  it('stops before the deletes when the records to delete cannot be searched again (exit 1)', async () => {
    // Prepare: a plan creating C-3000 and deleting C-2900; the platform answers no search (404)
    const unread = await deleteOfC2900Plan('unread', (occurredAt) => [
      {
        entity: `record:${SMALL_CAMPAIGN}:C-3000`,
        category: 'create',
        repair: {
          action: 'add-or-update-campaign-record',
          message: {
            campaignName: SMALL_CAMPAIGN,
            clientId: 'C-3000',
            previewRecordData: [{ key: 'Name', value: 'Unread' }],
            correlationId: 'unread-test-create',
            occurredAt,
          },
        },
      },
    ]);

    // Act
    const run = await ops('reconcile', 'apply', unread, '--platform-url', `${simulator.baseUrl}/x`);
    await drain();

    // Assess: the create went first, no delete followed
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/add-or-update-campaign-record +1 repair: sent 1/);
    expect(run.stderr).toMatch(
      /The records to delete could not be searched again: search in "Spring-Renewals" failed: HTTP_404.*No delete was sent; 1 repair went before them\. Rerun the same command/,
    );
    expect(record('C-3000')).toBeDefined();
    expect(record('C-2900')).toBeDefined();
  });

  it.each([
    ['a truncated export (row count)', { rowCount: 99 }, 'COUNT_MISMATCH'],
    ['a changed export (hash)', { sha256: '0'.repeat(64) }, 'HASH_MISMATCH'],
    ['a manifest without exportedAt', { exportedAt: undefined }, 'MANIFEST'],
    ['an unknown scope', { scope: 'nope' }, 'UNKNOWN_SCOPE'],
  ])('refuses %s and plans nothing (exit 1)', async (_name, change, code) => {
    // Prepare
    const text =
      'loginUserId,firstName,lastName,userTemplateName,status\nx@example.com,X,Y,Agent-Standard,active\n';
    const file = await writeExport(`refused-${code}.csv`, text, 'hr-agents', 'users', change);

    // Act
    const run = await onSimulator('plan', file);

    // Assess: the refusal is noted, with its message, in a run item the history reads back
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Refused (${code})`);
    expect(run.stderr).toContain('Nothing was planned');
    expect(await refusalsNoted('scope' in change ? change.scope : 'hr-agents')).toContainEqual({
      code,
      message: expect.any(String),
    });
  });

  it.each([
    [
      'an empty export',
      'loginUserId,firstName,lastName,userTemplateName,status\n',
      'users',
      'hr-agents',
      'EMPTY',
    ],
    [
      'duplicate keys',
      'loginUserId,firstName,lastName,userTemplateName\nd@example.com,D,E,Agent-Standard\nd@example.com,D,F,Agent-Standard\n',
      'users',
      'hr-agents',
      'DUPLICATE_KEYS',
    ],
    [
      'rows outside the scope',
      'campaignName,clientId,data.Name\nOther-Campaign,Z-1,Zed\n',
      'records',
      'crm-renewals',
      'OUT_OF_SCOPE',
    ],
  ])('refuses %s (exit 1)', async (_name, text, kind, scope, code) => {
    // Prepare
    const file = await writeExport(`refused-${code}.csv`, text, scope, kind);

    // Act
    const run = await onSimulator('plan', file);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Refused (${code})`);
  });
});
