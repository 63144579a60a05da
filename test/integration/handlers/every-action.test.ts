/**
 * Scenarios that are the same for every action, run over the action list against the real
 * entry points, the simulator and moto. Each action's own file keeps what only it does.
 */
import { describe, expect, it } from 'vitest';
import { type ActionName, actionDefinition } from '../../../lambdas/actions';
import type { FaultSettings } from '../../../local/simulator';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { expectDeadLettered, outcomeLines } from './support/expectations';
import {
  deliverLosingResponse,
  type Harness,
  harnessPerFile,
  MAX_RECEIVE_COUNT,
} from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { seedRecord, seedUser } from './support/seed-data';

const harness = harnessPerFile({ simulator: { campaigns: ['Leads', 'Callbacks'] } });

interface LastReceiveCase {
  readonly action: ActionName;
  /** What the platform holds before the message comes. */
  readonly seed?: (harness: Harness) => void;
  /** Simulator faults that make every request fail retryably. @default none */
  readonly faults?: FaultSettings;
  readonly message: unknown;
  readonly errorCode: string | RegExp;
  readonly errorMessage: string | RegExp;
}

const GRACE = 'grace@example.com';
const gaveUp = `gave up after receive ${MAX_RECEIVE_COUNT}`;
const RECORD_C1 = { campaignName: 'Leads', clientId: 'c-1' };

const LAST_RECEIVE: readonly LastReceiveCase[] = [
  {
    action: 'add-or-update-campaign-record',
    faults: { failedStatusRate: 1 },
    message: { ...RECORD_C1, previewRecordData: [{ key: 'Name', value: 'Ada' }] },
    errorCode: 'FAILED',
    errorMessage: `${gaveUp}: addOrUpdateCampaignRecord: previewResultStatus FAILED: simulated failure, please retry`,
  },
  {
    // No fault: the simulator answers FAILED for a campaign it does not have.
    action: 'search-campaign-records',
    message: { campaignName: 'Closed', clientId: 'c-1' },
    errorCode: 'FAILED',
    errorMessage: `${gaveUp}: searchPreviewCampaign: previewResultStatus FAILED: campaign not found`,
  },
  {
    action: 'change-campaign-record-status',
    seed: (h) => seedRecord(h, 'c-1'),
    faults: { failedStatusRate: 1 },
    message: { ...RECORD_C1, previewRecordStateEnum: 'COMPLETED' },
    errorCode: 'FAILED',
    errorMessage: `${gaveUp}: changeCampaignRecordStatus: previewResultStatus FAILED: simulated failure, please retry`,
  },
  {
    action: 'transfer-campaign-record',
    seed: (h) => seedRecord(h, 'c-1'),
    faults: { failedStatusRate: 1 },
    message: { ...RECORD_C1, transferToCampaign: 'Callbacks' },
    errorCode: 'FAILED',
    errorMessage: `${gaveUp}: transferCampaignRecord: previewResultStatus FAILED: simulated failure, please retry`,
  },
  {
    action: 'delete-campaign-record',
    seed: (h) => seedRecord(h, 'c-1'),
    faults: { throttleRate: 1 },
    message: RECORD_C1,
    errorCode: 'HTTP_429',
    errorMessage: `${gaveUp}: deleteRecordFromCampaign: HTTP 429`,
  },
  {
    action: 'add-user',
    faults: { serverErrorRate: 1 },
    message: {
      loginUserId: GRACE,
      firstName: 'Grace',
      lastName: 'Hopper',
      userTemplateName: 'Agent',
    },
    errorCode: /^HTTP_50[023]$/,
    errorMessage: new RegExp(`^${gaveUp}: add-user: HTTP 50[023]`),
  },
  {
    action: 'query-user-existence',
    faults: { failedStatusRate: 1 },
    message: { loginUserId: GRACE },
    errorCode: 'FAIL',
    errorMessage: `${gaveUp}: query-existence: result FAIL`,
  },
  {
    action: 'delete-user',
    seed: (h) => seedUser(h, GRACE),
    faults: { failedStatusRate: 1 },
    message: { loginUserId: GRACE },
    errorCode: 'FAIL',
    errorMessage: `${gaveUp}: delete-user: result FAIL`,
  },
];

interface InProcessRetryCase {
  readonly action: ActionName;
  readonly seed?: (harness: Harness) => void;
  readonly faults: FaultSettings;
  readonly message: unknown;
  /** The requests the simulator counted for the failing call: one per in-process attempt. */
  readonly attempts: (harness: Harness) => number;
  /** What the platform holds afterwards, and what it must still hold (nothing was applied). */
  readonly platform: (harness: Harness) => unknown;
  readonly unchanged: unknown;
}

const inLeads = (h: Harness, clientId: string) => h.sim.state.findByClientId('Leads', clientId);

const IN_PROCESS_RETRY: readonly InProcessRetryCase[] = [
  {
    action: 'add-or-update-campaign-record',
    faults: { throttleRate: 1 },
    message: {
      ...RECORD_C1,
      previewRecordData: [
        { key: 'Name', value: 'Grace Hopper', displayOrder: 1 },
        { key: 'MobilePhone', value: '+14155550100', displayOrder: 2 },
      ],
    },
    attempts: (h) => h.sim.stats.count('addOrUpdateCampaignRecord', 429),
    platform: (h) => h.sim.state.listRecords('Leads'),
    unchanged: [],
  },
  {
    action: 'search-campaign-records',
    faults: { failedStatusRate: 1 },
    message: RECORD_C1,
    attempts: (h) => h.sim.stats.count('searchPreviewCampaign', 'FAILED'),
    platform: (h) => h.sim.state.listRecords('Leads'),
    unchanged: [],
  },
  {
    action: 'change-campaign-record-status',
    seed: (h) => seedRecord(h, 'c-1'),
    faults: { failedStatusRate: 1 },
    message: { ...RECORD_C1, previewRecordStateEnum: 'COMPLETED' },
    attempts: (h) => h.sim.stats.count('changeCampaignRecordStatus', 'FAILED'),
    platform: (h) => inLeads(h, 'c-1')?.workedState,
    unchanged: 'NOTWORKED',
  },
  {
    action: 'transfer-campaign-record',
    seed: (h) => seedRecord(h, 'c-1'),
    faults: { serverErrorRate: 1 },
    message: { ...RECORD_C1, transferToCampaign: 'Callbacks' },
    attempts: (h) => h.sim.stats.endpoint('transferCampaignRecord').requests,
    platform: (h) => ['Leads', 'Callbacks'].find((c) => h.sim.state.findByClientId(c, 'c-1')),
    unchanged: 'Leads',
  },
  {
    action: 'delete-campaign-record',
    seed: (h) => seedRecord(h, 'c-1'),
    faults: { serverErrorRate: 1 },
    message: RECORD_C1,
    attempts: (h) => h.sim.stats.endpoint('deleteRecordFromCampaign').requests,
    platform: (h) => inLeads(h, 'c-1') !== undefined,
    unchanged: true,
  },
  {
    action: 'add-user',
    faults: { failedStatusRate: 1 },
    message: {
      loginUserId: GRACE,
      firstName: 'Grace',
      lastName: 'Hopper',
      primaryEmailAddr: GRACE,
      userTemplateName: 'Agent',
    },
    attempts: (h) => h.sim.stats.count('add-user', 'FAIL'),
    platform: (h) => h.sim.state.findUser(GRACE),
    unchanged: undefined,
  },
  {
    action: 'query-user-existence',
    faults: { failedStatusRate: 1 },
    message: { loginUserId: GRACE },
    attempts: (h) => h.sim.stats.count('query-existence', 'FAIL'),
    platform: (h) => h.sim.state.listUsers(),
    unchanged: [],
  },
  {
    action: 'delete-user',
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
    '$action retries in-process, then reports the record as a batch item failure',
    async ({ action, seed, faults, message, attempts, platform, unchanged }) => {
      // Prepare
      const handler = await harness.load(action);
      seed?.(harness);
      harness.sim.setFaults(faults);
      const record = sqsRecord(message);

      // Act
      const response = await handler(sqsEvent(record), lambdaContext());

      // Assess
      expect(failedIds(response)).toEqual([record.messageId]);
      expect(attempts(harness)).toBe(3);
      expect(platform(harness)).toEqual(unchanged);
      expect(await harness.deadLetters()).toEqual([]);
    },
  );
});

describe('every action, on its last receive', () => {
  it.each(LAST_RECEIVE)(
    '$action dead-letters a retryable failure with its reason instead of failing the record',
    async ({ action, seed, faults, message, errorCode, errorMessage }) => {
      // Prepare
      const handler = await harness.load(action);
      seed?.(harness);
      harness.sim.setFaults(faults ?? {});
      const record = sqsRecord(message, { receiveCount: MAX_RECEIVE_COUNT });

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
  /** Seeds the platform; what it returns is handed to `message`. */
  readonly seed?: (harness: Harness) => unknown;
  readonly message: (seeded: unknown) => unknown;
  /** The platform afterwards, with evidence the write was applied once. */
  readonly after: (harness: Harness) => unknown;
  readonly expected: unknown;
  readonly code: string;
}

const historyOf = (h: Harness) => h.sim.state.history.map((op) => op.action);

const LOST_RESPONSE: readonly LostResponseCase[] = [
  {
    // By previewRecordId only: the ledger cannot order it, so the executor's own check answers.
    action: 'transfer-campaign-record',
    seed: (h) => seedRecord(h, 'c-1'),
    message: (seeded) => ({
      campaignName: 'Leads',
      previewRecordId: (seeded as { previewRecordID: string }).previewRecordID,
      transferToCampaign: 'Callbacks',
    }),
    after: (h) => ({
      campaign: ['Leads', 'Callbacks'].find((c) => h.sim.state.findByClientId(c, 'c-1')),
      history: historyOf(h),
    }),
    expected: { campaign: 'Callbacks', history: ['transferCampaignRecord'] },
    code: 'ALREADY_TRANSFERRED',
  },
  {
    action: 'delete-campaign-record',
    seed: (h) => seedRecord(h, 'c-1'),
    message: () => RECORD_C1,
    after: (h) => ({ record: inLeads(h, 'c-1'), history: historyOf(h) }),
    expected: { record: undefined, history: ['deleteRecordFromCampaign'] },
    code: 'ALREADY_DELETED',
  },
  {
    action: 'add-user',
    message: () => ({
      loginUserId: GRACE,
      firstName: 'Grace',
      lastName: 'Hopper',
      primaryEmailAddr: GRACE,
      userTemplateName: 'Agent',
      createInCloudConnect: true,
    }),
    after: (h) => ({ appliedCount: h.sim.state.findUser(GRACE)?.appliedCount }),
    expected: { appliedCount: 1 },
    code: 'ALREADY_EXISTS',
  },
  {
    action: 'delete-user',
    seed: (h) => seedUser(h, GRACE),
    message: () => ({ loginUserId: GRACE }),
    after: (h) => ({ users: h.sim.state.listUsers() }),
    expected: { users: [] },
    code: 'ALREADY_DELETED',
  },
];

describe('every write whose answer was lost', () => {
  it.each(LOST_RESPONSE)(
    '$action succeeds on the redelivery without applying it twice ($code)',
    async ({ action, seed, message, after, expected, code }) => {
      // Prepare
      const handler = await harness.load(action);
      const body = message(seed?.(harness));
      const first = await deliverLosingResponse(harness, handler, body, 'm-1');

      // Act
      const redelivery = await handler(
        sqsEvent(sqsRecord(body, { messageId: 'm-1', receiveCount: 2 })),
        lambdaContext(),
      );

      // Assess
      expect(failedIds(first)).toEqual(['m-1']);
      expect(failedIds(redelivery)).toEqual([]);
      expect(after(harness)).toEqual(expected);
      expect(outcomeLines(harness).get('m-1')?.code).toBe(code);
      expect(await harness.deadLetters()).toEqual([]);
    },
  );
});

/** Messages of the three provisioning actions, for the user grace@example.com. */
const PROVISIONING: readonly { readonly action: ActionName; readonly message: unknown }[] = [
  {
    action: 'add-user',
    message: {
      loginUserId: GRACE,
      firstName: 'Grace',
      lastName: 'Hopper',
      primaryEmailAddr: GRACE,
      userTemplateName: 'Agent',
    },
  },
  { action: 'query-user-existence', message: { loginUserId: GRACE } },
  { action: 'delete-user', message: { loginUserId: GRACE } },
];

describe('every provisioning action, on an environment with the internal user directory', () => {
  it.each(PROVISIONING)(
    '$action dead-letters NOT_SUPPORTED with its reason',
    async ({ action, message }) => {
      // Prepare
      const internal = await harness.startExtraSimulator({ userDirectory: 'internal' });
      const handler = await harness.load(action, { API_BASE_URL: internal.baseUrl });
      const record = sqsRecord(message);

      // Act
      const response = await handler(sqsEvent(record), lambdaContext());

      // Assess
      expect(failedIds(response)).toEqual([]);
      const { endpoint } = actionDefinition(action);
      await expectDeadLettered(harness, {
        source: record,
        action,
        errorCategory: 'permanent',
        errorCode: 'NOT_SUPPORTED',
        errorMessage: `${endpoint}: result NOT_SUPPORTED`,
      });
      expect(await harness.resultEvents()).toEqual([]);
    },
  );
});
