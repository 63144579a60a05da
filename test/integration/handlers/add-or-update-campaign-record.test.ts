/**
 * The real add-or-update-campaign-record entry point against the simulator and moto. Only
 * `Leads` and `Callbacks` exist (`Closed` is answered FAILED, retryable), and the simulated
 * platform refuses bodies above 16 KiB with HTTP 413 (the spec shows no size limit; a real
 * platform has one), which gives a non-retryable 4xx to dead-letter.
 */
import { describe, expect, it } from 'vitest';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { expectDeadLetterCodes, expectDeadLettered, outcomeLines } from './support/expectations';
import {
  deliverLosingResponse,
  handlerHarness,
  MAX_RECEIVE_COUNT,
} from './support/handler-harness';
import { failedIds } from './support/lambda-events';

const ACTION = 'add-or-update-campaign-record';
const MAX_BODY_BYTES = 16 * 1024;
const { harness, handler } = handlerHarness(ACTION, {
  simulator: { campaigns: ['Leads', 'Callbacks'], maxBodyBytes: MAX_BODY_BYTES },
});

const lead = (clientId: string, extra: Record<string, unknown> = {}) => ({
  campaignName: 'Leads',
  clientId,
  previewRecordData: [
    { key: 'Name', value: 'Grace Hopper', displayOrder: 1 },
    { key: 'MobilePhone', value: '+14155550100', displayOrder: 2 },
  ],
  ...extra,
});

describe('add-or-update-campaign-record over SQS', () => {
  it('adds a new record with the clientId stored under the default Id key', async () => {
    // Prepare
    const record = sqsRecord(lead('c-1', { preferredAgent: 'agent-7' }));

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    const stored = harness.sim.state.findByClientId('Leads', 'c-1');
    expect(stored?.preferredAgent).toBe('agent-7');
    expect(stored?.previewRecordData.map((item) => item.key)).toEqual([
      'Id',
      'Name',
      'MobilePhone',
    ]);
    expect(await harness.deadLetters()).toEqual([]);
  });

  it('replaces all data of an existing record on update', async () => {
    // Prepare
    await handler(sqsEvent(sqsRecord(lead('c-1'))), lambdaContext());
    const update = sqsRecord(
      lead('c-1', { previewRecordData: [{ key: 'Name', value: 'Grace B. Hopper' }] }),
    );

    // Act
    const response = await handler(sqsEvent(update), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(harness.sim.state.listRecords('Leads')).toHaveLength(1);
    expect(harness.sim.state.findByClientId('Leads', 'c-1')?.previewRecordData).toEqual([
      { key: 'Name', value: 'Grace B. Hopper', displayOrder: 1 },
    ]);
  });

  it.each([
    [
      'no clientId (the platform would answer INVALIDCLIENTID)',
      { campaignName: 'Leads', previewRecordData: [{ key: 'Name', value: 'Grace Hopper' }] },
      'clientId: is required',
    ],
    [
      'a data key equal to the default clientIdFieldName (INVALIDRECORDDATAKEY)',
      lead('c-1', { previewRecordData: [{ key: 'Id', value: 'c-1' }] }),
      'previewRecordData[0].key: data key "Id" is reserved',
    ],
    [
      'a data key equal to a custom clientIdFieldName (INVALIDRECORDDATAKEY)',
      lead('c-1', {
        clientIdFieldName: 'CrmId',
        previewRecordData: [
          { key: 'Name', value: 'Grace Hopper' },
          { key: 'CrmId', value: 'c-1' },
        ],
      }),
      'previewRecordData[1].key: data key "CrmId" is reserved',
    ],
    [
      'a phone key holding no E.164 number',
      lead('c-1', { previewRecordData: [{ key: 'HomePhone', value: '0049 30 1234567' }] }),
      'previewRecordData[0].value: key "HomePhone" is a phone field',
    ],
  ])(
    'dead-letters %s before calling the platform, naming the field',
    async (_case, message, reason) => {
      // Prepare
      const record = sqsRecord(message);

      // Act
      const response = await handler(sqsEvent(record), lambdaContext());

      // Assess
      expect(failedIds(response)).toEqual([]);
      const letter = await expectDeadLettered(harness, {
        source: record,
        action: ACTION,
        errorCategory: 'permanent',
        errorCode: 'INVALID_MESSAGE',
        errorMessage: reason,
      });
      // The reason names fields, never values (they are personal data).
      expect(letter?.attributes.errorMessage).not.toMatch(/Grace|0049 30/);
      expect(harness.sim.stats.requests).toBe(0);
    },
  );

  it('dead-letters a non-retryable HTTP status (413) at once', async () => {
    // Prepare: about 40 KB of notes, legal for SQS but above what the platform accepts.
    const notes = Array.from({ length: 10 }, (_, i) => ({
      key: `Note${i}`,
      value: 'n'.repeat(4000),
    }));
    const record = sqsRecord(lead('c-big', { previewRecordData: notes }));

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'HTTP_413',
      errorMessage: 'addOrUpdateCampaignRecord: HTTP 413',
    });
    expect(harness.sim.stats.endpoint('addOrUpdateCampaignRecord').requests).toBe(1);
  });

  it('dead-letters FAILED on the last receive, with the platform reason', async () => {
    // Prepare
    const record = sqsRecord(lead('c-1', { campaignName: 'Closed' }), {
      receiveCount: MAX_RECEIVE_COUNT,
    });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'retryable',
      errorCode: 'FAILED',
      errorMessage: `gave up after receive ${MAX_RECEIVE_COUNT}: addOrUpdateCampaignRecord: previewResultStatus FAILED: campaign not found`,
    });
  });

  it('keeps one record when a redelivery follows a lost response (the add becomes an update)', async () => {
    // Prepare
    const first = await deliverLosingResponse(harness, handler, lead('c-1'), 'm-1');

    // Act
    const redelivery = await handler(
      sqsEvent(sqsRecord(lead('c-1'), { messageId: 'm-1', receiveCount: 2 })),
      lambdaContext(),
    );

    // Assess
    expect(failedIds(first)).toEqual(['m-1']);
    expect(failedIds(redelivery)).toEqual([]);
    expect(harness.sim.state.listRecords('Leads').map((r) => r.clientId)).toEqual(['c-1']);
    expect(await harness.deadLetters()).toEqual([]);
  });
});

describe('add-or-update-campaign-record over EventBridge', () => {
  it('applies an SQS-wrapped event and a direct event', async () => {
    // Prepare
    const wrapped = sqsRecord(eventBridgeEvent(ACTION, lead('c-1'), 'evt-1'));
    const direct = eventBridgeEvent(ACTION, lead('c-2'), 'evt-2');

    // Act
    const batch = await handler(sqsEvent(wrapped), lambdaContext());
    const single = await handler(direct, lambdaContext());

    // Assess
    expect(failedIds(batch)).toEqual([]);
    expect(single).toBeUndefined();
    expect(harness.sim.state.listRecords('Leads').map((r) => r.clientId)).toEqual(['c-1', 'c-2']);
    const lines = outcomeLines(harness);
    expect(lines.get('evt-1')).toMatchObject({ messageId: wrapped.messageId, code: 'SUCCESS' });
    expect(lines.get('evt-2')).toMatchObject({ messageId: 'evt-2', code: 'SUCCESS' });
  });

  it('dead-letters a direct event whose detail-type names another action', async () => {
    // Prepare
    const event = eventBridgeEvent('add-user', lead('c-1'), 'evt-misrouted');

    // Act
    const result = await handler(event, lambdaContext());

    // Assess
    expect(result).toBeUndefined();
    await expectDeadLettered(harness, {
      source: event,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'WRONG_DETAIL_TYPE',
      errorMessage: 'detail-type "add-user" but this is the add-or-update-campaign-record handler',
    });
  });
});

describe('add-or-update-campaign-record mixed batch', () => {
  it('reports exactly the retryable record as failed', async () => {
    // Prepare
    const records = [
      sqsRecord(lead('c-ok'), { messageId: 'ok' }),
      sqsRecord(lead('c-reserved', { previewRecordData: [{ key: 'Id', value: 'x' }] }), {
        messageId: 'reserved',
      }),
      sqsRecord(eventBridgeEvent(ACTION, lead('c-wrapped')), { messageId: 'wrapped' }),
      sqsRecord(lead('c-flaky', { campaignName: 'Closed' }), { messageId: 'flaky' }),
      sqsRecord(lead('c-last', { campaignName: 'Closed' }), {
        messageId: 'last-try',
        receiveCount: MAX_RECEIVE_COUNT,
      }),
      sqsRecord('', { messageId: 'empty' }),
    ];

    // Act
    const response = await handler(sqsEvent(...records), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual(['flaky']);
    await expectDeadLetterCodes(harness, {
      empty: 'INVALID_JSON',
      'last-try': 'FAILED',
      reserved: 'INVALID_MESSAGE',
    });
    expect(
      harness.sim.state
        .listRecords('Leads')
        .map((r) => r.clientId)
        .sort(),
    ).toEqual(['c-ok', 'c-wrapped']);
  });
});
