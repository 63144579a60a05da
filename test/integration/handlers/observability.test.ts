/**
 * Logs and metrics of a full run through all eight real entry points: successes, idempotent
 * outcomes, schema rejections carrying personal data, platform failures, the last receive and
 * an API key rotation. Everything written to stdout/stderr is captured (Powertools Logger and
 * Metrics print there) and must never contain the API key or the personal data in the
 * messages, while every record's lines carry its correlation id, the action and the outcome
 * code, and the EMF blobs carry the counts per action.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAMES, type ActionName } from '../../../lambdas/actions';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { outcomeLines } from './support/expectations';
import {
  type Harness,
  INITIAL_API_KEY,
  type LambdaEntry,
  LEADS_AND_CALLBACKS,
  MAX_RECEIVE_COUNT,
  startHarness,
} from './support/handler-harness';
import { failedIds } from './support/lambda-events';

const ROTATED_API_KEY = 'sk-rotated-e1f2a3b4c5d6';

/** Personal data put into the messages; none of it may reach a log line. */
const PII = {
  firstName: 'Zelda',
  lastName: 'Quixote-Marchetti',
  fullName: 'Zelda Quixote-Marchetti',
  phone: '+14155550123',
  badPhone: '0171 5550199',
  email: 'zelda.quixote@example.com',
  badEmail: 'zelda at example dot com',
  street: 'Via Roma 12',
} as const;

const LEAD_DATA = [
  { key: 'Name', value: PII.fullName },
  { key: 'MobilePhone', value: PII.phone },
  { key: 'Street', value: PII.street },
];

const NEW_HIRE = {
  loginUserId: PII.email,
  firstName: PII.firstName,
  lastName: PII.lastName,
  primaryEmailAddr: PII.email,
  userTemplateName: 'Agent',
};

let harness: Harness;
const handlers = new Map<ActionName, LambdaEntry>();
/** correlation id → action, for every record sent. */
const expected = new Map<string, ActionName>();

const record = (action: ActionName, id: string, body: unknown, receiveCount = 1) => {
  expected.set(id, action);
  return sqsRecord(body, { messageId: id, receiveCount });
};

/** After the joins above, which carry no occurredAt and are ordered by their send time. */
const inAMinute = (minutes: number): string =>
  new Date(Date.now() + minutes * 60_000).toISOString();

const run = async (action: ActionName, ...records: ReturnType<typeof sqsRecord>[]) => {
  const handler = handlers.get(action);
  if (!handler) throw new Error(`no handler for ${action}`);
  return failedIds(await handler(sqsEvent(...records), lambdaContext()));
};

/** Each action: a batch of successes, idempotent outcomes and rejections, then a FAILED/FAIL. */
const fullRun = async (): Promise<Record<string, string[]>> => {
  const { sim } = harness;
  const failures: Record<string, string[]> = {};
  sim.state.putRecord({ campaignName: 'Leads', clientId: 'c-move', previewRecordData: LEAD_DATA });
  sim.state.putRecord({ campaignName: 'Leads', clientId: 'c-drop', previewRecordData: LEAD_DATA });

  failures.add = await run(
    'add-or-update-campaign-record',
    record('add-or-update-campaign-record', 'add-ok', {
      campaignName: 'Leads',
      clientId: 'c-1',
      previewRecordData: LEAD_DATA,
    }),
    record('add-or-update-campaign-record', 'add-bad-phone', {
      campaignName: 'Leads',
      clientId: 'c-2',
      previewRecordData: [{ key: 'HomePhone', value: PII.badPhone }],
    }),
    record('add-or-update-campaign-record', 'add-closed', {
      campaignName: 'Closed',
      clientId: 'c-3',
      previewRecordData: LEAD_DATA,
    }),
    record(
      'add-or-update-campaign-record',
      'add-last',
      { campaignName: 'Closed', clientId: 'c-4', previewRecordData: LEAD_DATA },
      MAX_RECEIVE_COUNT,
    ),
    record(
      'add-or-update-campaign-record',
      'evt-add',
      eventBridgeEvent(
        'add-or-update-campaign-record',
        { campaignName: 'Leads', clientId: 'c-5', previewRecordData: LEAD_DATA },
        'evt-add',
      ),
    ),
  );
  failures.search = await run(
    'search-campaign-records',
    record('search-campaign-records', 'search-name', {
      campaignName: 'Leads',
      previewRecordData: [{ key: 'Name', value: PII.fullName, condition: 'EQUALS' }],
    }),
    record('search-campaign-records', 'search-none', { campaignName: 'Leads', clientId: 'c-none' }),
    record('search-campaign-records', 'search-bad', {
      campaignName: 'Leads',
      previewRecordData: [{ key: 'Name', value: PII.fullName, condition: 'LIKE' }],
    }),
  );
  const direct = await handlers.get('search-campaign-records')?.(
    { correlationId: 'search-direct', campaignName: 'Leads', clientId: 'c-1' },
    lambdaContext(),
  );
  expected.set('search-direct', 'search-campaign-records');
  expect(direct).toMatchObject({ code: 'SUCCESS' });
  failures.status = await run(
    'change-campaign-record-status',
    record('change-campaign-record-status', 'status-ok', {
      campaignName: 'Leads',
      clientId: 'c-1',
      previewRecordStateEnum: 'COMPLETED',
    }),
    record('change-campaign-record-status', 'status-unknown', {
      campaignName: 'Leads',
      clientId: 'c-unknown',
      previewRecordStateEnum: 'COMPLETED',
    }),
  );
  failures.transfer = await run(
    'transfer-campaign-record',
    record('transfer-campaign-record', 'transfer-ok', {
      occurredAt: '2026-11-24T09:00:00.000Z',
      campaignName: 'Leads',
      clientId: 'c-move',
      transferToCampaign: 'Callbacks',
    }),
    // Sent again later (not an exact duplicate): nothing is left in Leads to move (no effect).
    record('transfer-campaign-record', 'transfer-again', {
      occurredAt: '2026-11-24T09:05:00.000Z',
      campaignName: 'Leads',
      clientId: 'c-move',
      transferToCampaign: 'Callbacks',
    }),
  );
  failures.delete = await run(
    'delete-campaign-record',
    record('delete-campaign-record', 'delete-ok', { campaignName: 'Leads', clientId: 'c-drop' }),
    record('delete-campaign-record', 'delete-gone', { campaignName: 'Leads', clientId: 'c-gone' }),
  );

  // The key rotates before the provisioning actions run: their first calls get 401.
  await harness.rotateApiKey(ROTATED_API_KEY);

  failures.addUser = await run(
    'add-user',
    record('add-user', 'hire-ok', NEW_HIRE),
    record('add-user', 'hire-bad-email', { ...NEW_HIRE, secondaryEmailAddr: PII.badEmail }),
  );
  failures.addUserAgain = await run('add-user', record('add-user', 'hire-again', NEW_HIRE));
  failures.query = await run(
    'query-user-existence',
    record('query-user-existence', 'query-ok', { loginUserId: PII.email }),
    record('query-user-existence', 'query-none', { loginUserId: 'nobody@example.com' }),
  );
  failures.deleteUser = await run(
    'delete-user',
    record('delete-user', 'leaver-ok', { occurredAt: inAMinute(1), loginUserId: PII.email }),
    // The same leave sent again later (an exact duplicate would count as Duplicate instead).
    record('delete-user', 'leaver-gone', { occurredAt: inAMinute(2), loginUserId: PII.email }),
  );

  // A platform failure for each action: a retry, and a dead letter on the last receive.
  sim.setFaults({ failedStatusRate: 1 });
  const faulty: Record<ActionName, unknown> = {
    'add-or-update-campaign-record': {
      campaignName: 'Leads',
      clientId: 'c-9',
      previewRecordData: LEAD_DATA,
    },
    'search-campaign-records': { campaignName: 'Leads', clientId: 'c-9' },
    'change-campaign-record-status': {
      campaignName: 'Leads',
      clientId: 'c-9',
      previewRecordStateEnum: 'REMOVED',
    },
    'transfer-campaign-record': {
      campaignName: 'Leads',
      clientId: 'c-9',
      transferToCampaign: 'Callbacks',
    },
    'delete-campaign-record': { campaignName: 'Leads', clientId: 'c-9' },
    'add-user': { ...NEW_HIRE, loginUserId: 'other@example.com' },
    'query-user-existence': { loginUserId: PII.email },
    // Another user: the leave above is newer than these and would make them stale.
    'delete-user': { loginUserId: 'other@example.com' },
  };
  for (const action of ACTION_NAMES) {
    failures[`${action}-fault`] = await run(
      action,
      record(action, `${action}-fault`, faulty[action]),
      record(action, `${action}-fault-last`, faulty[action], MAX_RECEIVE_COUNT),
    );
  }
  sim.setFaults({});
  return failures;
};

let failures: Record<string, string[]>;

beforeAll(async () => {
  harness = await startHarness(LEADS_AND_CALLBACKS);
  for (const action of ACTION_NAMES) handlers.set(action, await harness.load(action));
  failures = await fullRun();
});

afterAll(async () => {
  await harness?.close();
});

describe('a full run', () => {
  it('fails exactly the retryable records', () => {
    // Assess
    expect(failures).toMatchObject({
      add: ['add-closed'],
      search: [],
      // Its add may still be on its way in another queue: kept, counted as having no effect.
      status: [],
      transfer: [],
      delete: [],
      addUser: [],
      addUserAgain: [],
      query: [],
      deleteUser: [],
    });
    for (const action of ACTION_NAMES)
      expect(failures[`${action}-fault`]).toEqual([`${action}-fault`]);
    expect(harness.sim.stats.unauthorized).toBeGreaterThan(0);
  });
});

describe('logs', () => {
  it('never contain the API key, old or rotated', () => {
    // Act
    const output = harness.output.text();

    // Assess
    expect(output.length).toBeGreaterThan(0);
    expect(output).not.toContain(INITIAL_API_KEY);
    expect(output).not.toContain(ROTATED_API_KEY);
  });

  it.each(Object.entries(PII))('never contain the personal data (%s)', (_kind, value) => {
    // Act
    const output = harness.output.text();

    // Assess
    expect(output).not.toContain(value);
  });

  it('are structured JSON lines, one outcome line per record with its correlation id, action and code', () => {
    // Act
    const lines = outcomeLines(harness);

    // Assess
    for (const [correlationId, action] of expected) {
      expect(lines.get(correlationId), correlationId).toMatchObject({
        action,
        correlationId,
        code: expect.any(String),
        category: expect.stringMatching(/^(success|retryable|permanent)$/),
        service: 'contact-center-sync',
      });
    }
    expect(lines.get('add-bad-phone')).toMatchObject({ level: 'ERROR', code: 'INVALID_MESSAGE' });
    expect(lines.get('delete-gone')).toMatchObject({ level: 'WARN', code: 'ALREADY_ABSENT' });
    expect(lines.get('add-last')).toMatchObject({ level: 'ERROR', code: 'FAILED' });
  });

  it('carry the correlation id, action and code on every line about a record', () => {
    // Act
    const recordLines = harness.output
      .jsonLines()
      .filter((line) => 'correlationId' in line || 'messageId' in line);

    // Assess
    expect(recordLines.length).toBeGreaterThan(expected.size);
    for (const line of recordLines) {
      expect(line).toMatchObject({
        correlationId: expect.any(String),
        action: expect.any(String),
        code: expect.any(String),
      });
      expect(expected.get(String(line.correlationId))).toBe(line.action);
    }
  });

  it('log each platform attempt with its latency at debug level', () => {
    // Act
    const attempts = harness.output
      .jsonLines()
      .filter((line) => line.message === 'platform attempt');

    // Assess
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts[0]).toMatchObject({
      level: 'DEBUG',
      endpoint: expect.any(String),
      latencyMs: expect.any(Number),
      attempt: expect.any(Number),
    });
  });
});

describe('metrics (EMF)', () => {
  /** Metric names each action's EMF blobs declare, and whether all carry the action dimension. */
  const metricsByAction = () => {
    const found = new Map<string, Set<string>>();
    for (const line of harness.output.jsonLines()) {
      const aws = line._aws as
        | {
            CloudWatchMetrics?: {
              Namespace: string;
              Dimensions: string[][];
              Metrics: { Name: string }[];
            }[];
          }
        | undefined;
      if (!aws?.CloudWatchMetrics) continue;
      for (const directive of aws.CloudWatchMetrics) {
        expect(directive.Namespace).toBe('ContactCenterSync');
        expect(directive.Dimensions.flat()).toContain('action');
        const names = found.get(String(line.action)) ?? new Set<string>();
        for (const metric of directive.Metrics) {
          names.add(metric.Name);
          expect(line[metric.Name], metric.Name).toBeDefined();
        }
        found.set(String(line.action), names);
      }
    }
    return found;
  };

  it.each(ACTION_NAMES)(
    'count succeeded, retried, dead-lettered and API latency for %s',
    (action) => {
      // Act
      const names = metricsByAction().get(action);

      // Assess
      expect(names).toBeDefined();
      expect([...(names ?? [])]).toEqual(
        expect.arrayContaining(['Succeeded', 'Retried', 'DeadLettered', 'ApiLatency']),
      );
    },
  );

  it('count idempotent outcomes where they happened', () => {
    // Act
    const found = metricsByAction();

    // Assess
    for (const action of ['delete-campaign-record', 'add-user', 'delete-user']) {
      expect(found.get(action)?.has('AlreadyApplied'), action).toBe(true);
    }
    // Events counted apart: a change whose record is not there, a move of a record already moved.
    expect(found.get('change-campaign-record-status')?.has('NoEffect')).toBe(true);
    expect(found.get('transfer-campaign-record')?.has('NoEffect')).toBe(true);
  });

  it('record the latency of each API call in milliseconds', () => {
    // Act
    const latencies = harness.output
      .jsonLines()
      .filter((line) => line.ApiLatency !== undefined)
      .flatMap((line) => (Array.isArray(line.ApiLatency) ? line.ApiLatency : [line.ApiLatency]));

    // Assess
    expect(latencies.length).toBeGreaterThan(10);
    for (const value of latencies) expect(value).toBeTypeOf('number');
  });
});
