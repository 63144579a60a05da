/**
 * How every action takes its messages, run over the action list against the real entry points,
 * the simulator and moto: an EventBridge event wrapped in an SQS record and one delivered
 * directly, and a mixed batch (applied, refused, waiting, failing, on its last receive) in which
 * exactly the retryable records are reported as failed and the rest are applied, answered or
 * dead-lettered with their reasons. Only `Leads` and `Callbacks` exist: a message naming
 * `Closed` is answered FAILED, the per-message retryable failure of a record action.
 */
import { describe, expect, it } from 'vitest';
import type { ActionName } from '../../../lambdas/actions';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import {
  expectDeadLetter,
  expectDeadLetterCodes,
  expectResultStatuses,
  outcomeLines,
} from './support/expectations';
import {
  type Harness,
  harnessPerFile,
  LEADS_AND_CALLBACKS,
  MAX_RECEIVE_COUNT,
  platformProxy,
} from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { byCity, lead, newHire, stateChange, transfer } from './support/messages';
import { seedCitizen, seedRecord, seedUser } from './support/seed-data';

const harness = harnessPerFile(LEADS_AND_CALLBACKS);
const proxy = platformProxy(harness);

const clientIdsIn = (h: Harness, campaign: string) =>
  h.sim.state
    .listRecords(campaign)
    .map((r) => r.clientId)
    .sort();
const userIds = (h: Harness) =>
  h.sim.state
    .listUsers()
    .map((u) => u.loginUserId)
    .sort();
const campaignsOf = (h: Harness, ...clientIds: string[]) =>
  clientIds.map((id) => ['Leads', 'Callbacks'].find((c) => h.sim.state.findByClientId(c, id)));
const statesOf = (h: Harness, ...clientIds: string[]) =>
  clientIds.map((id) => h.sim.state.findByClientId('Leads', id)?.workedState);
/** The two answers a read published, in event id order. */
const answers = async (h: Harness) =>
  (await h.resultEvents(2)).sort((a, b) =>
    a.detail.correlationId.localeCompare(b.detail.correlationId),
  );

interface EventBridgeCase {
  readonly action: ActionName;
  readonly seed?: (harness: Harness) => void;
  /** The details of the event wrapped in an SQS record (`evt-1`) and the direct one (`evt-2`). */
  readonly wrapped: unknown;
  readonly direct: unknown;
  /** The outcome codes of `evt-1` and `evt-2`. @default SUCCESS for both */
  readonly codes?: readonly [string, string];
  /** What the two events left: the platform's state, or the answers published for them. */
  readonly after: (harness: Harness) => unknown;
  readonly expected: unknown;
}

const EVENTBRIDGE: readonly EventBridgeCase[] = [
  {
    action: 'add-or-update-campaign-record',
    wrapped: lead('c-1'),
    direct: lead('c-2'),
    after: (h) => clientIdsIn(h, 'Leads'),
    expected: ['c-1', 'c-2'],
  },
  {
    action: 'search-campaign-records',
    seed: (h) => seedCitizen(h, 'c-1'),
    wrapped: { campaignName: 'Leads', clientId: 'c-1' },
    direct: byCity('Berlin'),
    after: async (h) =>
      (await answers(h)).map((event) => ({
        detailType: event['detail-type'],
        correlationId: event.detail.correlationId,
        request: event.detail.request,
        clientIds: (event.detail.result as { records: { clientId: string }[] }).records.map(
          (r) => r.clientId,
        ),
      })),
    expected: [
      {
        detailType: 'search-campaign-records.result',
        correlationId: 'evt-1',
        request: { campaignName: 'Leads', clientId: 'c-1' },
        clientIds: ['c-1'],
      },
      {
        detailType: 'search-campaign-records.result',
        correlationId: 'evt-2',
        request: byCity('Berlin'),
        clientIds: ['c-1'],
      },
    ],
  },
  {
    action: 'change-campaign-record-status',
    seed: (h) => [seedRecord(h, 'c-1'), seedRecord(h, 'c-2')],
    wrapped: stateChange('c-1'),
    direct: stateChange('c-2', 'REMOVED'),
    after: (h) => statesOf(h, 'c-1', 'c-2'),
    expected: ['COMPLETED', 'REMOVED'],
  },
  {
    action: 'transfer-campaign-record',
    seed: (h) => [seedRecord(h, 'c-1'), seedRecord(h, 'c-2')],
    wrapped: transfer('c-1'),
    direct: transfer('c-2'),
    after: (h) => campaignsOf(h, 'c-1', 'c-2'),
    expected: ['Callbacks', 'Callbacks'],
  },
  {
    action: 'delete-campaign-record',
    seed: (h) => [seedRecord(h, 'c-1'), seedRecord(h, 'c-2')],
    wrapped: { campaignName: 'Leads', clientId: 'c-1' },
    direct: { campaignName: 'Leads', clientId: 'c-2' },
    after: (h) => clientIdsIn(h, 'Leads'),
    expected: [],
  },
  {
    action: 'add-user',
    wrapped: newHire('ada@example.com'),
    direct: newHire('grace@example.com'),
    after: userIds,
    expected: ['ada@example.com', 'grace@example.com'],
  },
  {
    action: 'query-user-existence',
    seed: (h) => seedUser(h, 'grace@example.com', false),
    wrapped: { loginUserId: 'grace@example.com' },
    direct: { loginUserId: 'ada@example.com' },
    codes: ['SUCCESS', 'NOT_FOUND'],
    after: async (h) =>
      (await answers(h)).map((e) => [
        e.detail.correlationId,
        (e.detail.result as { exists: boolean }).exists,
      ]),
    expected: [
      ['evt-1', true],
      ['evt-2', false],
    ],
  },
  {
    action: 'delete-user',
    seed: (h) => [seedUser(h, 'ada@example.com'), seedUser(h, 'grace@example.com')],
    wrapped: { loginUserId: 'ada@example.com' },
    direct: { loginUserId: 'grace@example.com' },
    after: userIds,
    expected: [],
  },
];

describe('every action over EventBridge', () => {
  it.each(EVENTBRIDGE)(
    '$action applies an SQS-wrapped event and a direct event, each under its event id',
    async ({ action, seed, wrapped, direct, codes, after, expected }) => {
      // Prepare
      const handler = await harness.load(action);
      seed?.(harness);
      const record = sqsRecord(eventBridgeEvent(action, wrapped, 'evt-1'));
      const event = eventBridgeEvent(action, direct, 'evt-2');

      // Act
      const batch = await handler(sqsEvent(record), lambdaContext());
      const single = await handler(event, lambdaContext());

      // Assess
      expect(failedIds(batch)).toEqual([]);
      expect(single).toBeUndefined();
      expect(await after(harness)).toEqual(expected);
      const lines = outcomeLines(harness);
      const [wrappedCode, directCode] = codes ?? ['SUCCESS', 'SUCCESS'];
      expect(lines.get('evt-1')).toMatchObject({ messageId: record.messageId, code: wrappedCode });
      expect(lines.get('evt-2')).toMatchObject({ messageId: 'evt-2', code: directCode });
      expect(await harness.deadLetters()).toEqual([]);
    },
  );
});

interface MixedBatchCase {
  readonly action: ActionName;
  /**
   * The status the platform answers for requests naming "flaky" (through the proxy), for the
   * actions without a per-message retryable failure. @default none: the messages fail by themselves
   */
  readonly flakyStatus?: number;
  readonly seed?: (harness: Harness) => void;
  /** The batch, in order, by message id; `last-try` comes on its last receive. */
  readonly messages: Readonly<Record<string, unknown>>;
  /** Reported as batch item failures, to be retried. */
  readonly failed: readonly string[];
  /** Dead-lettered, with their codes: `last-try` as retryable, the others as permanent. */
  readonly deadLetters: Readonly<Record<string, string>>;
  /** What some of the dead letters' reasons say. @default nothing checked beyond the code */
  readonly reasons?: Readonly<Record<string, string>>;
  /** The answers a read published, by correlation id. @default none */
  readonly results?: Readonly<Record<string, string>>;
  /** Outcome codes in the log, by correlation id. @default none checked */
  readonly outcomes?: Readonly<Record<string, string>>;
  /** What the platform holds after the batch. */
  readonly after: (harness: Harness) => unknown;
  readonly expected: unknown;
}

const MIXED_BATCH: readonly MixedBatchCase[] = [
  {
    action: 'add-or-update-campaign-record',
    messages: {
      ok: lead('c-ok'),
      reserved: lead('c-reserved', { previewRecordData: [{ key: 'Id', value: 'x' }] }),
      wrapped: eventBridgeEvent('add-or-update-campaign-record', lead('c-wrapped')),
      flaky: lead('c-flaky', { campaignName: 'Closed' }),
      'last-try': lead('c-last', { campaignName: 'Closed' }),
      empty: '',
    },
    failed: ['flaky'],
    deadLetters: { empty: 'INVALID_JSON', 'last-try': 'FAILED', reserved: 'INVALID_MESSAGE' },
    after: (h) => clientIdsIn(h, 'Leads'),
    expected: ['c-ok', 'c-wrapped'],
  },
  {
    action: 'search-campaign-records',
    seed: (h) => seedCitizen(h, 'c-1'),
    messages: {
      found: { campaignName: 'Leads', clientId: 'c-1' },
      'not-found': { campaignName: 'Leads', clientId: 'c-none' },
      wrapped: eventBridgeEvent('search-campaign-records', byCity('Berlin'), 'evt-w'),
      invalid: { campaignName: 'Leads', maxRecords: 0, clientId: 'c-1' },
      flaky: { campaignName: 'Closed', clientId: 'c-1' },
      'last-try': { campaignName: 'Closed', clientId: 'c-1' },
    },
    failed: ['flaky'],
    deadLetters: { invalid: 'INVALID_MESSAGE', 'last-try': 'FAILED' },
    results: { 'evt-w': 'SUCCESS', found: 'SUCCESS', 'not-found': 'NORECORDFOUND' },
    after: (h) => clientIdsIn(h, 'Leads'),
    expected: ['c-1'],
  },
  {
    // A record not there yet may have its add on the way: waited for, not dead-lettered.
    action: 'change-campaign-record-status',
    seed: (h) => [seedRecord(h, 'c-ok'), seedRecord(h, 'c-wrapped')],
    messages: {
      ok: stateChange('c-ok'),
      unknown: {
        campaignName: 'Leads',
        previewRecordId: 'p-404',
        previewRecordStateEnum: 'COMPLETED',
      },
      'not-yet': stateChange('c-404'),
      invalid: stateChange('c-ok', 'DONE'),
      wrapped: eventBridgeEvent(
        'change-campaign-record-status',
        stateChange('c-wrapped', 'REMOVED'),
      ),
      flaky: stateChange('c-1', 'COMPLETED', { campaignName: 'Closed' }),
      'last-try': stateChange('c-2', 'COMPLETED', { campaignName: 'Closed' }),
    },
    failed: ['flaky', 'unknown'],
    deadLetters: { invalid: 'INVALID_MESSAGE', 'last-try': 'FAILED' },
    reasons: { invalid: 'previewRecordStateEnum' },
    // Kept in the ledger for an add that may come; an id no campaign holds waits to be found.
    outcomes: { 'not-yet': 'NO_EFFECT', unknown: 'RECORD_ID_UNRESOLVED' },
    after: (h) => statesOf(h, 'c-ok', 'c-wrapped'),
    expected: ['COMPLETED', 'REMOVED'],
  },
  {
    action: 'transfer-campaign-record',
    seed: (h) => [
      seedRecord(h, 'c-ok'),
      seedRecord(h, 'c-done'),
      seedRecord(h, 'c-done', 'Callbacks'),
      seedRecord(h, 'c-flaky'),
      seedRecord(h, 'c-last'),
    ],
    messages: {
      ok: transfer('c-ok'),
      done: transfer('c-done'),
      nowhere: transfer('c-nowhere'),
      invalid: transfer('c-ok', { transferToCampaign: '' }),
      flaky: transfer('c-flaky', { transferToCampaign: 'Closed' }),
      'last-try': transfer('c-last', { transferToCampaign: 'Closed' }),
    },
    failed: ['flaky'],
    deadLetters: {
      invalid: 'INVALID_MESSAGE',
      'last-try': 'FAILED',
      done: 'TRANSFER_TARGET_OCCUPIED',
    },
    outcomes: { nowhere: 'NO_EFFECT' },
    after: (h) => campaignsOf(h, 'c-ok', 'c-flaky', 'c-last'),
    expected: ['Callbacks', 'Leads', 'Leads'],
  },
  {
    action: 'delete-campaign-record',
    seed: (h) => [seedRecord(h, 'c-ok'), seedRecord(h, 'c-wrapped')],
    messages: {
      ok: { campaignName: 'Leads', clientId: 'c-ok' },
      gone: { campaignName: 'Leads', clientId: 'c-gone' },
      invalid: { campaignName: 'Leads' },
      'not-json': '<delete/>',
      wrapped: eventBridgeEvent(
        'delete-campaign-record',
        { campaignName: 'Leads', clientId: 'c-wrapped' },
        'evt-w',
      ),
      // Its detail-type names another action: answered under the SQS message id.
      misrouted: eventBridgeEvent('delete-user', { loginUserId: 'someone' }, 'evt-m'),
      flaky: { campaignName: 'Closed', clientId: 'c-1' },
      'last-try': { campaignName: 'Closed', clientId: 'c-2' },
    },
    failed: ['flaky'],
    deadLetters: {
      invalid: 'INVALID_MESSAGE',
      'last-try': 'FAILED',
      misrouted: 'WRONG_DETAIL_TYPE',
      'not-json': 'INVALID_JSON',
    },
    reasons: { 'last-try': 'campaign not found' },
    outcomes: { gone: 'ALREADY_ABSENT', 'evt-w': 'SUCCESS', flaky: 'FAILED' },
    after: (h) => clientIdsIn(h, 'Leads'),
    expected: [],
  },
  {
    action: 'add-user',
    flakyStatus: 503,
    seed: (h) => seedUser(h, 'existing@example.com', false),
    messages: {
      new: newHire('new@example.com'),
      existing: newHire('existing@example.com'),
      invalid: newHire('bad@example.com', { userTemplateName: '' }),
      wrapped: eventBridgeEvent('add-user', newHire('wrapped@example.com')),
      flaky: newHire('flaky-1@example.com'),
      'last-try': newHire('flaky-2@example.com'),
    },
    failed: ['flaky'],
    deadLetters: {
      existing: 'USER_EXISTS_NOT_OURS',
      invalid: 'INVALID_MESSAGE',
      'last-try': 'HTTP_503',
    },
    outcomes: { existing: 'USER_EXISTS_NOT_OURS' },
    after: userIds,
    expected: ['existing@example.com', 'new@example.com', 'wrapped@example.com'],
  },
  {
    action: 'query-user-existence',
    flakyStatus: 502,
    seed: (h) => seedUser(h, 'grace@example.com', true),
    messages: {
      exists: { loginUserId: 'grace@example.com' },
      missing: { loginUserId: 'nobody@example.com' },
      invalid: { loginUserId: '' },
      wrapped: eventBridgeEvent(
        'query-user-existence',
        { loginUserId: 'grace@example.com' },
        'evt-w',
      ),
      flaky: { loginUserId: 'flaky@example.com' },
      'last-try': { loginUserId: 'flaky@example.com' },
    },
    failed: ['flaky'],
    deadLetters: { invalid: 'INVALID_MESSAGE', 'last-try': 'HTTP_502' },
    results: { 'evt-w': 'SUCCESS', exists: 'SUCCESS', missing: 'NOT_FOUND' },
    after: userIds,
    expected: ['grace@example.com'],
  },
  {
    action: 'delete-user',
    flakyStatus: 500,
    seed: (h) => [seedUser(h, 'leaver@example.com'), seedUser(h, 'wrapped@example.com')],
    messages: {
      leaver: { loginUserId: 'leaver@example.com' },
      gone: { loginUserId: 'gone@example.com' },
      invalid: { loginUserId: 'x', extra: true },
      wrapped: eventBridgeEvent('delete-user', { loginUserId: 'wrapped@example.com' }),
      flaky: { loginUserId: 'flaky@example.com' },
      'last-try': { loginUserId: 'flaky@example.com' },
    },
    failed: ['flaky'],
    deadLetters: { invalid: 'INVALID_MESSAGE', 'last-try': 'HTTP_500' },
    outcomes: { gone: 'ALREADY_ABSENT' },
    after: userIds,
    expected: [],
  },
];

describe('every action, given a mixed batch', () => {
  it.each(MIXED_BATCH)(
    '$action reports exactly the retryable records as failed and dead-letters the refused ones with reasons',
    async (row) => {
      // Prepare
      const { action, flakyStatus, messages, deadLetters } = row;
      // Through the proxy, which fails only the requests naming "flaky"; else straight on.
      const platform = flakyStatus === undefined ? harness.sim.baseUrl : proxy.endpoint;
      const handler = await harness.load(action, { API_BASE_URL: platform });
      if (flakyStatus !== undefined) {
        proxy.intercept((request) =>
          request.bodyText.includes('flaky')
            ? { status: flakyStatus, body: { message: `HTTP ${flakyStatus}` } }
            : undefined,
        );
      }
      row.seed?.(harness);
      const records = Object.entries(messages).map(([messageId, message]) =>
        sqsRecord(message, {
          messageId,
          receiveCount: messageId === 'last-try' ? MAX_RECEIVE_COUNT : 1,
        }),
      );

      // Act
      const response = await handler(sqsEvent(...records), lambdaContext());

      // Assess
      expect(failedIds(response)).toEqual([...row.failed].sort());
      const letters = await expectDeadLetterCodes(harness, deadLetters);
      for (const record of records.filter(({ messageId }) => letters.has(messageId))) {
        expectDeadLetter(letters.get(record.messageId), {
          source: record,
          action,
          errorCategory: record.messageId === 'last-try' ? 'retryable' : 'permanent',
          errorCode: deadLetters[record.messageId] ?? '',
          errorMessage: row.reasons?.[record.messageId],
        });
      }
      await expectResultStatuses(harness, row.results ?? {});
      const lines = outcomeLines(harness);
      for (const id of row.failed) expect(lines.get(id)?.category).toBe('retryable');
      for (const [id, code] of Object.entries(row.outcomes ?? {})) {
        expect(lines.get(id)?.code).toBe(code);
      }
      expect(row.after(harness)).toEqual(row.expected);
    },
  );
});
