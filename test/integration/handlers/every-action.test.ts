/**
 * Scenarios that are the same for every action, run over the action list against the real
 * entry points, the simulator and moto: retries, the last receive, a lost answer, a delete of
 * what is already gone. Each action's own file keeps
 * what only it does; every-action-refusals and every-action-delivery hold the other tables.
 */
import { describe, expect, it } from 'vitest';
import { type ActionName, actionDefinition } from '../../../lambdas/actions';
import type { FaultSettings } from '../../../local/simulator';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { expectDeadLettered, outcomeLines } from './support/expectations';
import {
  deliverLosingResponse,
  type EnvOverrides,
  type Harness,
  harnessPerFile,
  LEADS_AND_CALLBACKS,
  MAX_RECEIVE_COUNT,
} from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { lead, newHire, stateChange, transfer } from './support/messages';
import { seedRecord, seedUser } from './support/seed-data';

const harness = harnessPerFile(LEADS_AND_CALLBACKS);

const GRACE = 'grace@example.com';
const RECORD_C1 = { campaignName: 'Leads', clientId: 'c-1' };
const seedC1 = (h: Harness) => seedRecord(h, 'c-1');
const inLeads = (h: Harness, clientId: string) => h.sim.state.findByClientId('Leads', clientId);
const campaignOf = (h: Harness, clientId: string) =>
  ['Leads', 'Callbacks'].find((c) => h.sim.state.findByClientId(c, clientId));
const historyOf = (h: Harness) => h.sim.state.history.map((op) => op.action);

interface InProcessRetryCase {
  readonly action: ActionName;
  /** The fault, as the test name says it. */
  readonly failure: string;
  readonly seed?: (harness: Harness) => void;
  readonly faults: FaultSettings;
  readonly message: unknown;
  /** The requests the simulator counted for the failing call: one per in-process attempt. */
  readonly attempts: (harness: Harness) => number;
  /** What the platform holds afterwards, and what it must still hold (nothing was applied). */
  readonly platform: (harness: Harness) => unknown;
  readonly unchanged: unknown;
}

const IN_PROCESS_RETRY: readonly InProcessRetryCase[] = [
  {
    action: 'add-or-update-campaign-record',
    failure: 'HTTP 429',
    faults: { throttleRate: 1 },
    message: lead('c-1'),
    attempts: (h) => h.sim.stats.count('addOrUpdateCampaignRecord', 429),
    platform: (h) => h.sim.state.listRecords('Leads'),
    unchanged: [],
  },
  {
    action: 'search-campaign-records',
    failure: 'FAILED',
    seed: seedC1,
    faults: { failedStatusRate: 1 },
    message: RECORD_C1,
    attempts: (h) => h.sim.stats.count('searchPreviewCampaign', 'FAILED'),
    platform: (h) => h.sim.state.listRecords('Leads').map((r) => r.clientId),
    unchanged: ['c-1'],
  },
  {
    action: 'change-campaign-record-status',
    failure: 'FAILED',
    seed: seedC1,
    faults: { failedStatusRate: 1 },
    message: stateChange('c-1'),
    attempts: (h) => h.sim.stats.count('changeCampaignRecordStatus', 'FAILED'),
    platform: (h) => inLeads(h, 'c-1')?.workedState,
    unchanged: 'NOTWORKED',
  },
  {
    action: 'transfer-campaign-record',
    failure: 'HTTP 5xx',
    seed: seedC1,
    faults: { serverErrorRate: 1 },
    message: transfer('c-1'),
    attempts: (h) => h.sim.stats.endpoint('transferCampaignRecord').requests,
    platform: (h) => campaignOf(h, 'c-1'),
    unchanged: 'Leads',
  },
  {
    action: 'delete-campaign-record',
    failure: 'HTTP 5xx',
    seed: seedC1,
    faults: { serverErrorRate: 1 },
    message: RECORD_C1,
    attempts: (h) => h.sim.stats.endpoint('deleteRecordFromCampaign').requests,
    platform: (h) => inLeads(h, 'c-1') !== undefined,
    unchanged: true,
  },
  {
    action: 'add-user',
    failure: 'FAIL',
    faults: { failedStatusRate: 1 },
    message: newHire(GRACE),
    attempts: (h) => h.sim.stats.count('add-user', 'FAIL'),
    platform: (h) => h.sim.state.findUser(GRACE),
    unchanged: undefined,
  },
  {
    action: 'query-user-existence',
    failure: 'FAIL',
    faults: { failedStatusRate: 1 },
    message: { loginUserId: GRACE },
    attempts: (h) => h.sim.stats.count('query-existence', 'FAIL'),
    platform: (h) => h.sim.state.listUsers(),
    unchanged: [],
  },
  {
    action: 'query-user-existence',
    failure: 'a network error',
    faults: { connectionResetRate: 1 },
    message: { loginUserId: GRACE },
    attempts: (h) => h.sim.stats.endpoint('query-existence').requests,
    platform: (h) => h.sim.state.listUsers(),
    unchanged: [],
  },
  {
    action: 'delete-user',
    failure: 'HTTP 429',
    seed: (h) => seedUser(h, GRACE),
    faults: { throttleRate: 1, retryAfterSeconds: 0 },
    message: { loginUserId: GRACE },
    attempts: (h) => h.sim.stats.count('delete-user', 429),
    platform: (h) => h.sim.state.listUsers().map((u) => u.loginUserId),
    unchanged: [GRACE],
  },
];

describe('every action, before its last receive', () => {
  it.each(IN_PROCESS_RETRY)(
    '$action retries $failure in-process, then reports the record as a batch item failure',
    async ({ action, seed, faults, message, attempts, platform, unchanged }) => {
      // Prepare
      const handler = await harness.load(action);
      seed?.(harness);
      // On the action's own request: a first look at an entity the ledger has never met is not
      // what these cases are about.
      harness.sim.setFaults({ ...faults, endpoints: [actionDefinition(action).endpoint] });
      const record = sqsRecord(message);

      // Act
      const response = await handler(sqsEvent(record), lambdaContext());

      // Assess
      expect(failedIds(response)).toEqual([record.messageId]);
      expect(attempts(harness)).toBe(3);
      expect(platform(harness)).toEqual(unchanged);
      expect(await harness.resultEvents()).toEqual([]);
      expect(await harness.deadLetters()).toEqual([]);
    },
  );
});

interface LastReceiveCase {
  readonly action: ActionName;
  /** The failure, as the test name says it. */
  readonly failure: string;
  /** What the platform holds before the message comes. */
  readonly seed?: (harness: Harness) => void;
  /** Simulator faults that make every request fail retryably. @default none */
  readonly faults?: FaultSettings;
  /** Environment overrides of the entry point. @default none */
  readonly env?: EnvOverrides;
  readonly message: unknown;
  /** @default MAX_RECEIVE_COUNT */
  readonly receiveCount?: number;
  readonly errorCode: string | RegExp;
  readonly errorMessage: string | RegExp;
}

const gaveUp = `gave up after receive ${MAX_RECEIVE_COUNT}`;
const SIMULATED = 'simulated failure, please retry';

/** The reason of a record action the platform keeps answering FAILED, `why`. */
const previewFailed = (action: ActionName, why: string) =>
  `${gaveUp}: ${actionDefinition(action).endpoint}: previewResultStatus FAILED: ${why}`;

const LAST_RECEIVE: readonly LastReceiveCase[] = [
  {
    action: 'add-or-update-campaign-record',
    failure: 'FAILED',
    faults: { failedStatusRate: 1 },
    message: lead('c-1'),
    errorCode: 'FAILED',
    errorMessage: previewFailed('add-or-update-campaign-record', SIMULATED),
  },
  {
    // No fault: the simulator answers FAILED for a campaign it does not have.
    action: 'add-or-update-campaign-record',
    failure: 'FAILED for an unknown campaign',
    message: lead('c-1', { campaignName: 'Closed' }),
    errorCode: 'FAILED',
    errorMessage: previewFailed('add-or-update-campaign-record', 'campaign not found'),
  },
  {
    action: 'search-campaign-records',
    failure: 'FAILED for an unknown campaign',
    message: { campaignName: 'Closed', clientId: 'c-1' },
    errorCode: 'FAILED',
    errorMessage: previewFailed('search-campaign-records', 'campaign not found'),
  },
  {
    // A read whose answer cannot be published has not done its job.
    action: 'search-campaign-records',
    failure: 'RESULT_PUBLISH_FAILED',
    seed: seedC1,
    env: { RESULT_EVENT_BUS_NAME: 'no-such-result-bus' },
    message: RECORD_C1,
    errorCode: 'RESULT_PUBLISH_FAILED',
    errorMessage: `${gaveUp}: the result event could not be published`,
  },
  {
    action: 'change-campaign-record-status',
    failure: 'FAILED',
    seed: seedC1,
    faults: { failedStatusRate: 1 },
    message: stateChange('c-1'),
    errorCode: 'FAILED',
    errorMessage: previewFailed('change-campaign-record-status', SIMULATED),
  },
  {
    // Past the last receive too (a redrive, or a queue whose limit was raised): still given up.
    action: 'change-campaign-record-status',
    failure: 'a network error',
    seed: seedC1,
    faults: { connectionResetRate: 1 },
    message: stateChange('c-1'),
    receiveCount: MAX_RECEIVE_COUNT + 1,
    errorCode: 'NETWORK_ERROR',
    errorMessage: `gave up after receive ${MAX_RECEIVE_COUNT + 1}: changeCampaignRecordStatus: network error`,
  },
  {
    action: 'transfer-campaign-record',
    failure: 'FAILED',
    seed: seedC1,
    faults: { failedStatusRate: 1 },
    message: transfer('c-1'),
    errorCode: 'FAILED',
    errorMessage: previewFailed('transfer-campaign-record', SIMULATED),
  },
  {
    action: 'transfer-campaign-record',
    failure: 'a malformed answer',
    seed: seedC1,
    faults: { malformedBodyRate: 1 },
    message: transfer('c-1'),
    errorCode: 'MALFORMED_RESPONSE',
    errorMessage: `${gaveUp}: transferCampaignRecord: HTTP 200 but the body is not JSON`,
  },
  {
    action: 'delete-campaign-record',
    failure: 'HTTP 429',
    seed: seedC1,
    faults: { throttleRate: 1 },
    message: RECORD_C1,
    errorCode: 'HTTP_429',
    errorMessage: `${gaveUp}: deleteRecordFromCampaign: HTTP 429`,
  },
  {
    action: 'add-user',
    failure: 'HTTP 5xx',
    faults: { serverErrorRate: 1 },
    message: newHire(GRACE),
    errorCode: /^HTTP_50[023]$/,
    errorMessage: new RegExp(`^${gaveUp}: add-user: HTTP 50[023]`),
  },
  {
    action: 'query-user-existence',
    failure: 'FAIL',
    faults: { failedStatusRate: 1 },
    message: { loginUserId: GRACE },
    errorCode: 'FAIL',
    errorMessage: `${gaveUp}: query-existence: result FAIL`,
  },
  {
    action: 'delete-user',
    failure: 'FAIL',
    seed: (h) => seedUser(h, GRACE),
    faults: { failedStatusRate: 1 },
    message: { loginUserId: GRACE },
    errorCode: 'FAIL',
    errorMessage: `${gaveUp}: delete-user: result FAIL`,
  },
];

describe('every action, on its last receive', () => {
  it.each(LAST_RECEIVE)(
    '$action dead-letters a retryable failure ($failure) with its reason instead of failing the record',
    async ({ action, seed, faults, env, message, receiveCount, errorCode, errorMessage }) => {
      // Prepare
      const handler = await harness.load(action, env);
      seed?.(harness);
      harness.sim.setFaults({ ...faults, endpoints: [actionDefinition(action).endpoint] });
      const record = sqsRecord(message, { receiveCount: receiveCount ?? MAX_RECEIVE_COUNT });

      // Act
      const response = await handler(sqsEvent(record), lambdaContext());

      // Assess
      expect(failedIds(response)).toEqual([]);
      await expectDeadLettered(harness, {
        source: record,
        action,
        errorCategory: 'retryable',
        errorCode,
        errorMessage,
      });
    },
  );
});

interface LostResponseCase {
  readonly action: ActionName;
  /** How the message names what it writes, as the test name says it. */
  readonly by: string;
  /** Seeds the platform; what it returns is handed to `message`. */
  readonly seed?: (harness: Harness) => unknown;
  readonly message: (seeded: unknown) => unknown;
  /** The platform afterwards, with evidence the write was applied once. */
  readonly after: (harness: Harness) => unknown;
  readonly expected: unknown;
  readonly code: string;
}

/** A transfer of the seeded c-1, however addressed: in Callbacks, moved once. */
const TRANSFERRED_ONCE = {
  seed: seedC1,
  after: (h: Harness) => ({ campaign: campaignOf(h, 'c-1'), history: historyOf(h) }),
  expected: { campaign: 'Callbacks', history: ['transferCampaignRecord'] },
  code: 'ALREADY_TRANSFERRED',
} as const;

const LOST_RESPONSE: readonly LostResponseCase[] = [
  {
    // The read back finds the record holding its data: it is not sent again.
    action: 'add-or-update-campaign-record',
    by: 'clientId',
    message: () => lead('c-1'),
    // Not sent again: a repeated add is taken for an update, which drops the stored Id item.
    after: (h) => ({
      clientIds: h.sim.state.listRecords('Leads').map((r) => r.clientId),
      idItem: inLeads(h, 'c-1')?.previewRecordData.find((item) => item.key === 'Id')?.value,
    }),
    expected: { clientIds: ['c-1'], idItem: 'c-1' },
    code: 'ALREADY_APPLIED',
  },
  {
    action: 'change-campaign-record-status',
    by: 'clientId',
    seed: seedC1,
    message: () => stateChange('c-1', 'REMOVED'),
    after: (h) => ({ state: inLeads(h, 'c-1')?.workedState }),
    expected: { state: 'REMOVED' },
    code: 'ALREADY_APPLIED',
  },
  {
    action: 'transfer-campaign-record',
    by: 'clientId',
    message: () => transfer('c-1'),
    ...TRANSFERRED_ONCE,
  },
  {
    // By previewRecordId only: one search finds its clientId, then it is ordered like the rest.
    action: 'transfer-campaign-record',
    by: 'previewRecordId',
    message: (seeded) => ({
      campaignName: 'Leads',
      previewRecordId: (seeded as { previewRecordID: string }).previewRecordID,
      transferToCampaign: 'Callbacks',
    }),
    ...TRANSFERRED_ONCE,
  },
  {
    action: 'delete-campaign-record',
    by: 'clientId',
    seed: seedC1,
    message: () => RECORD_C1,
    after: (h) => ({ record: inLeads(h, 'c-1'), history: historyOf(h) }),
    expected: { record: undefined, history: ['deleteRecordFromCampaign'] },
    code: 'ALREADY_DELETED',
  },
  {
    action: 'add-user',
    by: 'loginUserId',
    message: () => newHire(GRACE, { createInCloudConnect: true }),
    after: (h) => ({ appliedCount: h.sim.state.findUser(GRACE)?.appliedCount }),
    expected: { appliedCount: 1 },
    code: 'ALREADY_EXISTS',
  },
  {
    action: 'delete-user',
    by: 'loginUserId',
    seed: (h) => seedUser(h, GRACE),
    message: () => ({ loginUserId: GRACE }),
    after: (h) => ({ users: h.sim.state.listUsers() }),
    expected: { users: [] },
    code: 'ALREADY_DELETED',
  },
];

describe('every write whose answer was lost', () => {
  it.each(LOST_RESPONSE)(
    '$action by $by reads back what its unanswered request did, in the same receive, and applies it once ($code)',
    async ({ action, seed, message, after, expected, code }) => {
      // Prepare
      const handler = await harness.load(action);
      const body = message(seed?.(harness));

      // Act: the platform applies the action's request and drops the connection
      const response = await deliverLosingResponse(harness, handler, body, 'm-1', [
        actionDefinition(action).endpoint,
      ]);

      // Assess
      expect(failedIds(response)).toEqual([]);
      expect(after(harness)).toEqual(expected);
      expect(outcomeLines(harness).get('m-1')?.code).toBe(code);
      expect(await harness.deadLetters()).toEqual([]);
    },
  );
});

/** Deletes of something that is not there: the state they ask for already holds. */
const ALREADY_GONE: readonly { readonly action: ActionName; readonly message: unknown }[] = [
  { action: 'delete-campaign-record', message: { campaignName: 'Leads', clientId: 'c-gone' } },
  { action: 'delete-user', message: { loginUserId: 'gone@example.com' } },
];

describe('every delete of something already gone', () => {
  it.each(ALREADY_GONE)(
    '$action treats it as done (ALREADY_ABSENT), not a failure',
    async ({ action, message }) => {
      // Prepare
      const handler = await harness.load(action);
      const record = sqsRecord(message);

      // Act
      const response = await handler(sqsEvent(record), lambdaContext());

      // Assess
      expect(failedIds(response)).toEqual([]);
      expect(await harness.deadLetters()).toEqual([]);
      expect(outcomeLines(harness).get(record.messageId)).toMatchObject({
        code: 'ALREADY_ABSENT',
        category: 'success',
      });
    },
  );
});
