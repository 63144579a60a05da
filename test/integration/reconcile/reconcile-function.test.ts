/**
 * The stack's reconcile function in-process (Lambda and Step Functions run poorly on moto):
 * against moto's S3 and DynamoDB and the simulator over its socket, each step the state machine
 * takes: a plan that auto-applies (its repairs file is what the Distributed Map sends), one held
 * for a person, a refusal, a CSV export, a plan that runs out of time and goes on in the next invocation, and
 * the applied step that records the run.
 */
import { createHash } from 'node:crypto';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import {
  CreateBucketCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerTable } from '../../../lambdas/core/aws/ledger-table';
import { userKey } from '../../../lambdas/core/ledger/entity-key';
import { WORKED_STATES } from '../../../lambdas/core/platform/platform-responses';
import { ENTITY_KINDS } from '../../../lambdas/entities';
import { WORKED_BY_AGENT } from '../../../lambdas/reconcile/delete-gate';
import { dynamoDbLedgerItems } from '../../../lambdas/reconcile/dynamodb-ledger-items';
import {
  DynamoDbRunHistory,
  RUN_HISTORY_KEY_PREFIX,
} from '../../../lambdas/reconcile/dynamodb-run-history';
import { LedgerItemView } from '../../../lambdas/reconcile/ledger-item-view';
import { parsePlan, planDigest } from '../../../lambdas/reconcile/plan-file';
import type {
  PlatformReader,
  PlatformReaderOptions,
} from '../../../lambdas/reconcile/platform-reader';
import {
  createReconcileRun,
  type PlannedOutput,
  type PlanStepOutput,
} from '../../../lambdas/reconcile/run-function';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { localPlatformReader } from '../../../testkit';
import { motoClientConfig, uniqueName } from '../../support/aws-clients';
import {
  createLedgerTable,
  motoDynamoDbClient,
  motoLedgerClient,
} from '../../support/ledger-table';
import { scopesOf } from '../../support/reconcile-scopes';
import { TEST_TENANT } from '../../support/test-tenant';
import { createdByUs as createdByUsIn } from './created-by-us';

const API_KEY = 'reconcile-function-key-01';
const s3 = new S3Client({ ...motoClientConfig(), forcePathStyle: true });
const bucket = uniqueName('reconcile').toLowerCase();
let tableName = '';
let simulator: RunningSimulator;
const published: { scope: string; values: Record<string, number> }[] = [];

const scopes = scopesOf({
  roster: { kind: 'users', apply: 'auto' },
  review: { kind: 'users', apply: 'plan-only' },
  strict: {
    kind: 'users',
    apply: 'auto',
    deleteUnmanaged: true,
    deleteGate: { count: 1, percent: 0 },
  },
  leads: { kind: 'records', apply: 'auto', campaigns: ['Leads'], splitKeys: ['CrmId'] },
  tidy: { kind: 'records', apply: 'auto', campaigns: ['Tidy'], deleteUnmanaged: true },
  late: { kind: 'records', apply: 'auto', campaigns: ['Late'], deleteUnmanaged: true },
  part: { kind: 'records', apply: 'auto', campaigns: ['Part'], deleteUnmanaged: true },
  // Two rosters in one deployment, each reading absence as leaving: each covers its own domain.
  staff: {
    kind: 'users',
    apply: 'auto',
    covers: { loginUserIdDomains: ['corp.example'] },
    absentMeansLeave: true,
  },
  vendor: {
    kind: 'users',
    apply: 'auto',
    covers: { loginUserIdDomains: ['vendor.example'] },
    absentMeansLeave: true,
  },
  // One domain, two templates: a user whose template no row shows may be either's.
  agents: {
    kind: 'users',
    apply: 'auto',
    covers: { loginUserIdDomains: ['desk.example'], userTemplateNames: ['Agent'] },
    absentMeansLeave: true,
  },
  supervisors: {
    kind: 'users',
    apply: 'auto',
    covers: { loginUserIdDomains: ['desk.example'], userTemplateNames: ['Supervisor'] },
    absentMeansLeave: true,
  },
});
const queueUrls = {
  'add-user': 'https://sqs.test/add-user',
  'delete-user': 'https://sqs.test/delete-user',
  'add-or-update-campaign-record': 'https://sqs.test/add-or-update-campaign-record',
  'delete-campaign-record': 'https://sqs.test/delete-campaign-record',
};

const run = (
  readerOptions: PlatformReaderOptions = {},
  reader?: (kind: 'users' | 'records') => PlatformReader,
) =>
  createReconcileRun({
    s3,
    bucket,
    tableName,
    ledgerClient: motoLedgerClient(),
    scopes,
    campaignRegion: 'eu-central-1',
    reader:
      reader ??
      (() =>
        localPlatformReader(
          { ...TEST_TENANT, baseUrl: simulator.baseUrl, apiKey: API_KEY },
          readerOptions,
        )),
    queueUrls,
    metrics: { publish: (scope, values) => published.push({ scope, values: { ...values } }) },
  });
const plenty = { getRemainingTimeInMillis: () => 600_000 };

/** Drops an export file and its manifest under incoming/, as a producer does. */
const dropFile = async (
  file: string,
  scope: string,
  text: string,
  rowCount: number,
  change: object = {},
) => {
  const manifest = {
    kind: 'users',
    scope,
    file,
    exportedAt: '2026-11-25T06:00:00.000Z',
    rowCount,
    sha256: createHash('sha256').update(text).digest('hex'),
    ...change,
  };
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `incoming/${file}`, Body: text }));
  const key = `incoming/${file.replace(/\.[a-z]+$/, '')}.manifest.json`;
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify(manifest) }));
  return { step: 'plan' as const, bucket, key, runName: uniqueName(file.replace(/\./g, '-')) };
};

/** Drops a JSON Lines export of `lines`. */
const drop = (name: string, scope: string, lines: readonly object[], change: object = {}) =>
  dropFile(
    `${name}.jsonl`,
    scope,
    `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    lines.length,
    change,
  );

const text = async (key: string) => {
  const answer = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await answer.Body?.transformToString()) ?? '';
};

/** The refusals the run history holds for `scope`. */
const refusals = async (scope: string) => {
  const table = new LedgerTable({ tableName, client: motoLedgerClient() });
  const found: { status: string; refusal?: { code: string } }[] = [];
  for await (const item of table.scan(`${RUN_HISTORY_KEY_PREFIX}run#${scope}#`)) {
    const run = JSON.parse(item.doc?.S ?? '{}');
    if (run.status === 'refused') found.push(run);
  }
  return found.map((run) => run.refusal?.code);
};

const user = (login: string) => ({
  loginUserId: login,
  firstName: 'F',
  lastName: 'L',
  userTemplateName: 'Agent',
});

/**
 * Records made by hand in `campaign` (one of them, `keep`, also in the export, the others
 * deletes of an auto-apply scope that deletes what it did not make), and the export's drop.
 */
const keepOneOf = async (scope: string, campaign: string, keep: string, others: string[]) => {
  for (const clientId of [keep, ...others]) {
    simulator.state.putRecord({
      campaignName: campaign,
      clientId,
      previewRecordData: [{ key: 'Name', value: clientId }],
    });
  }
  const kept = {
    campaignName: campaign,
    clientId: keep,
    previewRecordData: [{ key: 'Name', value: keep }],
  };
  return drop(scope, scope, [kept], { kind: 'records' });
};

/** The simulator's reader, with `onSearch` hearing each records search before it is made. */
const watchedReader =
  (onSearch: (request: Parameters<PlatformReader['search']>[0]) => void) =>
  (kind: 'users' | 'records') => {
    const inner = localPlatformReader({
      ...TEST_TENANT,
      baseUrl: simulator.baseUrl,
      apiKey: API_KEY,
    });
    return {
      get calls() {
        return inner.calls;
      },
      userExists: (login: string) => inner.userExists(login),
      search: async (request: Parameters<typeof inner.search>[0]) => {
        if (kind === 'records') onSearch(request);
        return inner.search(request);
      },
    };
  };

beforeAll(async () => {
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  tableName = await createLedgerTable(motoDynamoDbClient());
  simulator = await startSimulator({ ...TEST_TENANT, apiKey: API_KEY });
});
afterAll(async () => {
  await simulator?.close();
});

describe('the reconcile function (plan and applied steps)', () => {
  it('auto-applies a plan within the gates: writes the plan, a report and the repairs for the Distributed Map', async () => {
    // Prepare
    const input = await drop('roster-1', 'roster', [user('new.one@example.com')]);

    // Act
    const output = (await run()(input, plenty)) as PlanStepOutput;

    // Assess
    expect(output).toMatchObject({
      outcome: 'apply',
      scope: 'roster',
      repairs: 1,
      counts: { create: 1 },
    });
    const planned = output as PlannedOutput;
    const repairs = (await text(planned.repairsKey ?? ''))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(repairs).toEqual([
      {
        queueUrl: queueUrls['add-user'],
        body: expect.stringContaining('"occurredAt":"2026-11-25T06:00:00.000Z"'),
      },
    ]);
    expect(await text(planned.planKey)).toContain('"category":"create"');
    expect(await text(planned.reportKey)).not.toContain('"firstName"');
    expect(published.at(-1)).toEqual({
      scope: 'roster',
      values: expect.objectContaining({ ReconcileDriftFound: 1, ReconcilePlansHeld: 0 }),
    });
  });

  it('records the applied step in the run history, with who approved it and the plan file it applied', async () => {
    // Prepare
    const input = await drop('roster-2', 'roster', [user('second@example.com')], {
      exportedAt: '2026-11-25T07:00:00.000Z',
    });
    const planned = (await run()(input, plenty)) as PlannedOutput;

    // Act
    await run()({ step: 'applied', plan: planned }, plenty);

    // Assess
    const history = new DynamoDbRunHistory({ tableName, client: motoLedgerClient() });
    const state = await history.scope('roster');
    expect(state.applied).toMatchObject({
      exportedAt: '2026-11-25T07:00:00.000Z',
      approvedBy: 'auto-apply',
    });
    // The file's digest, kept through the applied step's record: `reconcile apply` of this plan
    // (after a hold) refuses a file that differs from it.
    expect(await history.run('roster', planned.runId)).toMatchObject({
      status: 'applied',
      planSha256: planDigest(await text(planned.planKey)),
    });
    expect(published.at(-1)?.values).toMatchObject({
      ReconcileDriftRepaired: 1,
      ReconcileRunSucceeded: 1,
    });
  });

  it('plans on when the applied plan before it was edited since, and notes why in the run', async () => {
    // Prepare: the plan roster applied last no longer matches its own header
    const { applied } = await new DynamoDbRunHistory({
      tableName,
      client: motoLedgerClient(),
    }).scope('roster');
    const previousKey = (applied?.planLocation ?? '').replace(`s3://${bucket}/`, '');
    const [head = '', ...entries] = (await text(previousKey)).split('\n');
    const edited = { ...JSON.parse(head), counts: { ...JSON.parse(head).counts, create: 9 } };
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: previousKey,
        Body: [JSON.stringify(edited), ...entries].join('\n'),
      }),
    );
    const input = await drop('roster-3', 'roster', [user('third@example.com')], {
      exportedAt: '2026-11-25T08:00:00.000Z',
    });

    // Act
    const output = (await run()(input, plenty)) as PlannedOutput;

    // Assess
    expect(output).toMatchObject({ outcome: 'apply', counts: { create: 1 } });
    const table = new LedgerTable({ tableName, client: motoLedgerClient() });
    const item = await table.get(`${RUN_HISTORY_KEY_PREFIX}run#roster#${output.runId}`);
    expect(JSON.parse(item?.doc?.S ?? '{}').warnings).toEqual([
      expect.stringMatching(/previous snapshot's plan s3:.* cannot be read \(.*counts\.create/),
    ]);
  });

  /** Users on the platform that the ledger shows this integration created (by live events). */
  const createdByUs = (logins: readonly string[]) =>
    createdByUsIn({ tableName, simulator }, user, logins);
  const deletesIn = async (output: PlanStepOutput) =>
    (await text((output as PlannedOutput).repairsKey ?? ''))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(JSON.parse(l).body))
      .filter((m) => m.firstName === undefined)
      .map((m) => m.loginUserId);

  it('two rosters reading absence as leaving in one deployment: each deletes only its own', async () => {
    // Prepare: each roster's stayer and leaver, a user no scope covers, all created by us
    await createdByUs([
      'ann@corp.example',
      'al.left@corp.example',
      'vic@vendor.example',
      'val.left@vendor.example',
      'nobody@elsewhere.example',
    ]);
    const staffRoster = await drop('staff-1', 'staff', [user('ann@corp.example')]);
    const vendorRoster = await drop('vendor-1', 'vendor', [user('vic@vendor.example')]);

    // Act
    const staff = await run()(staffRoster, plenty);
    const vendor = await run()(vendorRoster, plenty);

    // Assess
    expect(staff).toMatchObject({ outcome: 'apply', counts: { delete: 1, 'in-sync': 1 } });
    expect(vendor).toMatchObject({ outcome: 'apply', counts: { delete: 1, 'in-sync': 1 } });
    expect(await deletesIn(staff as PlanStepOutput)).toEqual(['al.left@corp.example']);
    expect(await deletesIn(vendor as PlanStepOutput)).toEqual(['val.left@vendor.example']);
  });

  it('holds the delete of a user both rules may match, naming both scopes, and the alarm metric fires', async () => {
    // Prepare: a user a live event made, whose template no roster row shows
    await createdByUs(['dee@desk.example', 'live@desk.example']);
    const input = await drop('agents-1', 'agents', [user('dee@desk.example')]);

    // Act
    const output = await run()(input, plenty);

    // Assess
    expect(output).toMatchObject({
      outcome: 'held',
      counts: { delete: 1 },
      heldBecause: [
        '1 of the deletes is of a user whose scope cannot be decided, never guessed (user:live@desk.example: scopes agents, supervisors)',
      ],
    });
    const report = await text((output as PlannedOutput).reportKey);
    expect(report).toContain(
      '"entity":"user:live@desk.example","category":"delete","reason":"OWNER_AMBIGUOUS","scopes":["agents","supervisors"]',
    );
    expect(published.at(-1)).toEqual({
      scope: 'agents',
      values: expect.objectContaining({ ReconcileDeletesHeld: 1, ReconcilePlansHeld: 1 }),
    });
    expect(simulator.state.findUser('live@desk.example')).toBeDefined();
  });

  it('applies the rest of an auto plan whose deletes are held, and notes the run as applied with its deletes held', async () => {
    // Prepare: a new user, and two leavers still provisioned beyond strict's gate of one
    for (const login of ['held1@example.com', 'held2@example.com'])
      simulator.state.addUser(user(login));
    const leaver = (login: string) => ({ loginUserId: login, status: 'terminated' });
    const input = await drop(
      'strict-rest',
      'strict',
      [user('joins@example.com'), leaver('held1@example.com'), leaver('held2@example.com')],
      { exportedAt: '2026-11-25T05:00:00.000Z' },
    );

    // Act
    const planned = (await run()(input, plenty)) as PlannedOutput;
    await run()({ step: 'applied', plan: planned }, plenty);

    // Assess: only the create goes; the run says its deletes wait, and the alarm's metric fires
    expect(planned).toMatchObject({ outcome: 'apply', repairs: 1, deletesHeld: 2 });
    expect(await text(planned.repairsKey ?? '')).not.toContain('held1@example.com');
    const history = new DynamoDbRunHistory({ tableName, client: motoLedgerClient() });
    expect(await history.run('strict', planned.runId)).toMatchObject({
      status: 'applied-deletes-held',
      deletesHeld: 2,
    });
    expect((await history.scope('strict')).applied).toBeUndefined();
    expect(published.at(-1)).toEqual({
      scope: 'strict',
      values: {
        ReconcileDriftRepaired: 1,
        ReconcileDeletesHeld: 2,
        ReconcilePlansHeld: 1,
        ReconcileRunSucceeded: 0,
      },
    });
  });

  it('holds the plan of a plan-only scope for a person, and says so in a metric', async () => {
    // Prepare
    const input = await drop('review-1', 'review', [user('held@example.com')]);

    // Act
    const output = await run()(input, plenty);

    // Assess
    expect(output).toMatchObject({ outcome: 'held', heldBecause: ['the scope is plan-only'] });
    expect(output).not.toHaveProperty('repairsKey');
    expect(published.at(-1)?.values).toMatchObject({ ReconcilePlansHeld: 1 });
  });

  it('holds an auto-apply plan whose deletes exceed the gate: nothing is sent, the whole delete set waits', async () => {
    // Prepare: two leavers still provisioned, a gate of one
    for (const login of ['gone1@example.com', 'gone2@example.com'])
      simulator.state.addUser(user(login));
    const leaver = (login: string) => ({ loginUserId: login, status: 'terminated' });
    const input = await drop('strict-1', 'strict', [
      leaver('gone1@example.com'),
      leaver('gone2@example.com'),
    ]);

    // Act
    const output = await run()(input, plenty);

    // Assess
    expect(output).toMatchObject({
      outcome: 'held',
      counts: { delete: 2 },
      heldBecause: ['2 deletes exceed the gate max(1, 0 % of 2) = 1'],
    });
    expect(output).not.toHaveProperty('repairsKey');
    expect(published.at(-1)?.values).toMatchObject({
      ReconcileDeletesHeld: 2,
      ReconcilePlansHeld: 1,
    });
    expect(simulator.state.findUser('gone1@example.com')).toBeDefined();
  });

  it('refuses a truncated export, naming the problem, and counts the refusal', async () => {
    // Prepare
    const input = await drop('roster-bad', 'roster', [user('x@example.com')], {
      rowCount: 5,
      exportedAt: '2026-11-26T00:00:00.000Z',
    });

    // Act
    const output = await run()(input, plenty);

    // Assess
    expect(output).toMatchObject({ outcome: 'refused', code: 'COUNT_MISMATCH', scope: 'roster' });
    expect((output as { message: string }).message).toContain('holds 1 rows, the manifest says 5');
    expect(published.at(-1)).toEqual({ scope: 'roster', values: { ReconcileRunsRefused: 1 } });
  });

  it('refuses a records sweep that does not fit one invocation, and notes the refusal in the run history', async () => {
    // Prepare: no time left for the first search.
    const input = await drop(
      'leads',
      'leads',
      [
        {
          campaignName: 'Leads',
          clientId: 'R-1',
          previewRecordData: [{ key: 'CrmId', value: 'R-1' }],
        },
      ],
      { kind: 'records' },
    );
    const noTime = { getRemainingTimeInMillis: () => 0 };

    // Act
    const output = await run()(input, noTime);

    // Assess
    expect(output).toMatchObject({ outcome: 'refused', code: 'SWEEP_TOO_LONG', scope: 'leads' });
    expect(await refusals('leads')).toEqual(['SWEEP_TOO_LONG']);
    expect(published.at(-1)).toEqual({ scope: 'leads', values: { ReconcileRunsRefused: 1 } });
  });

  it('refuses a plan when the platform cannot be read, and notes the refusal in the run history', async () => {
    // Prepare: the platform answers every query FAIL.
    const input = await drop('review-unread', 'review', [user('unread@example.com')], {
      exportedAt: '2026-11-26T03:00:00.000Z',
    });
    simulator.setFaults({ failedStatusRate: 1 });

    // Act
    const output = await run({ tries: 2, sleep: async () => {} })(input, plenty).finally(() =>
      simulator.setFaults({}),
    );

    // Assess
    expect(output).toMatchObject({ outcome: 'refused', code: 'PLATFORM_READ', scope: 'review' });
    expect(await refusals('review')).toEqual(['PLATFORM_READ']);
  });

  it('holds the deletes of an auto-applied plan when an agent works a record to delete while it is made', async () => {
    // Prepare: T-gone made by hand and not in the export; an agent works it after the sweep
    // read it, before its delete would go
    const input = await keepOneOf('tidy', 'Tidy', 'T-keep', ['T-gone']);
    const deps = watchedReader((request) => {
      if (request.clientId === 'T-gone') {
        simulator.state.recordAttempt('Tidy', { clientId: 'T-gone' }, { agent: 'agent.t' });
      }
    });

    // Act
    const output = await run({}, deps)(input, plenty);

    // Assess
    expect(output).toMatchObject({ outcome: 'held', counts: { delete: 1 } });
    expect(output).toMatchObject({
      heldBecause: [
        '1 of the deletes is of a record agents have worked (their attempts and work codes go with them)',
      ],
    });
    expect(output).not.toHaveProperty('repairsKey');
    // Named as a plan names a worked delete: a person may allow its count with --allow-deletes.
    const written = parsePlan(await text((output as PlannedOutput).planKey));
    expect(written.entries.find((e) => e.category === 'delete')).toMatchObject({
      entity: 'record:Tidy:T-gone',
      reason: WORKED_BY_AGENT,
    });
    expect(simulator.state.findByClientId('Tidy', 'T-gone')).toBeDefined();
  });

  it('holds the deletes of an auto-applied plan when the sweep leaves no time to search them again', async () => {
    // Prepare: L-gone made by hand and not in the export; once the sweep has searched, the
    // invocation has less time left than the handover needs
    const input = await keepOneOf('late', 'Late', 'L-keep', ['L-gone']);
    const searched: Parameters<PlatformReader['search']>[0][] = [];
    const deps = watchedReader((request) => searched.push(request));
    // The sweep searches each worked state; after the last, less than the handover is left.
    const states = () => new Set(searched.map((r) => r.previewRecordData?.[0]?.value));
    const swept = {
      getRemainingTimeInMillis: () => (states().size < WORKED_STATES.length ? 600_000 : 60_000),
    };

    // Act
    const output = (await run({}, deps)(input, swept)) as PlannedOutput;

    // Assess
    expect(output).toMatchObject({
      outcome: 'held',
      counts: { delete: 1 },
      heldBecause: [
        expect.stringContaining('the records to delete could not be searched again in time'),
      ],
    });
    expect(output).not.toHaveProperty('repairsKey');
    expect(searched.filter((request) => request.clientId !== undefined)).toEqual([]);
    expect(parsePlan(await text(output.planKey)).deletes).toMatchObject({ held: true, count: 1 });
    expect(simulator.state.findByClientId('Late', 'L-gone')).toBeDefined();
  });

  it('names the deletes found worked before the time for searching them again ran out', async () => {
    // Prepare: P-a and P-b made by hand, not in the export; an agent works P-a after the sweep;
    // the invocation runs out of time once the first record to delete has been searched again
    const input = await keepOneOf('part', 'Part', 'P-keep', ['P-a', 'P-b']);
    const rechecked: string[] = [];
    const deps = watchedReader((request) => {
      if (request.clientId === undefined) return;
      rechecked.push(request.clientId);
      if (request.clientId === 'P-a') {
        simulator.state.recordAttempt('Part', { clientId: 'P-a' }, { agent: 'agent.p' });
      }
    });
    const partly = {
      getRemainingTimeInMillis: () => (rechecked.length === 0 ? 600_000 : 60_000),
    };

    // Act
    const output = (await run({}, deps)(input, partly)) as PlannedOutput;

    // Assess
    expect(rechecked).toEqual(['P-a']);
    expect(output).toMatchObject({
      outcome: 'held',
      counts: { delete: 2 },
      heldBecause: [
        '1 of the deletes is of a record agents have worked (their attempts and work codes go with them)',
        expect.stringContaining('the records to delete could not be searched again in time'),
      ],
    });
    const written = parsePlan(await text(output.planKey));
    expect(written.entries.filter((e) => e.reason === WORKED_BY_AGENT)).toEqual([
      expect.objectContaining({ entity: 'record:Part:P-a' }),
    ]);
    expect(simulator.state.findByClientId('Part', 'P-a')).toBeDefined();
    expect(simulator.state.findByClientId('Part', 'P-b')).toBeDefined();
  });

  it("plans a CSV export read with the bulk loader's column mappings", async () => {
    // Prepare
    const csv = [
      'loginUserId,firstName,lastName,userTemplateName',
      'csv.one@example.com,F,L,Agent',
      '"csv.two@example.com","F ""Two""",L,Agent',
      '',
    ].join('\r\n');
    const input = await dropFile('roster-csv.csv', 'roster', csv, 2, {
      exportedAt: '2026-11-26T01:00:00.000Z',
    });

    // Act
    const output = await run()(input, plenty);

    // Assess
    expect(output).toMatchObject({ outcome: 'apply', scope: 'roster', counts: { create: 2 } });
  });

  it('refuses a CSV export whose header it cannot map, naming the column', async () => {
    // Prepare
    const csv = 'loginUserId,first.Name\nx@example.com,F\n';
    const input = await dropFile('roster-badcsv.csv', 'roster', csv, 1, {
      exportedAt: '2026-11-26T02:00:00.000Z',
    });

    // Act
    const output = await run()(input, plenty);

    // Assess
    expect(output).toMatchObject({ outcome: 'refused', code: 'INVALID_ROWS', scope: 'roster' });
    expect((output as { message: string }).message).toContain('CSV column 2 "first.Name"');
  });

  it('hands a plan over to the next invocation when its time runs out, asking only what is still unknown', async () => {
    // Prepare
    const logins = Array.from({ length: 6 }, (_, i) => `many${i}@example.com`);
    const input = await drop('roster-long', 'review', logins.map(user), {
      exportedAt: '2026-11-26T01:00:00.000Z',
    });
    let reads = 0;
    const budget = { getRemainingTimeInMillis: () => (reads++ < 3 ? 600_000 : 0) };
    const before = simulator.stats.snapshot();

    // Act
    const first = await run()(input, budget);
    const second = await run()(input, plenty);

    // Assess
    expect(first).toMatchObject({ outcome: 'continue' });
    expect((first as { answered: number }).answered).toBeGreaterThanOrEqual(3);
    expect(second).toMatchObject({ outcome: 'held', counts: { create: 6 } });
    const queries = (stats: typeof before) => stats.endpoints['query-existence']?.requests ?? 0;
    // Six candidates, each asked once across the two invocations.
    expect(queries(simulator.stats.snapshot()) - queries(before)).toBe(6);
  });

  const brokenDoc = (login: string) => ({
    schema: ENTITY_KINDS.user.parts.schema,
    kind: 'user',
    id: { loginUserId: login },
    events: 'x',
    known: {},
  });
  it.each([
    [
      'whose events are not a list',
      4,
      (login: string) => ({ S: JSON.stringify(brokenDoc(login)) }),
    ],
    ['whose document is not JSON', 5, () => ({ S: 'not json' })],
    // 0xff: a final block of the reserved type, which no deflate stream holds
    ['whose document is not deflated', 6, () => ({ B: Uint8Array.from([0xff, 0xff]) })],
  ] as const)(
    'refuses a plan that meets a user item %s, naming its key, and notes the refusal',
    async (_name, hour, doc) => {
      // Prepare
      const login = `broken.item${hour}@example.com`;
      const table = new LedgerTable({ tableName, client: motoLedgerClient() });
      await table.put({ pk: { S: userKey(login) }, doc: doc(login) }, {});
      const input = await drop(`review-broken-${hour}`, 'review', [user(login)], {
        exportedAt: `2026-11-26T0${hour}:00:00.000Z`,
      });
      const view = new LedgerItemView({
        items: dynamoDbLedgerItems({ tableName, client: motoLedgerClient() }),
      });

      // Act: the plan (the users scan), and the item read by its key
      const read = await view
        .createdByUs({ kind: 'user', loginUserId: login })
        .catch((error: Error) => error.message);
      const output = await run()(input, plenty).finally(() =>
        motoLedgerClient().send(
          new DeleteItemCommand({ TableName: tableName, Key: { pk: { S: userKey(login) } } }),
        ),
      );

      // Assess
      expect(output).toMatchObject({
        outcome: 'refused',
        code: 'LEDGER_ITEM_INVALID',
        message: expect.stringContaining(`the ledger item ${userKey(login)} does not parse`),
      });
      expect(await refusals('review')).toContain('LEDGER_ITEM_INVALID');
      expect(read).toContain(`the ledger item ${userKey(login)} does not parse`);
    },
  );
});
