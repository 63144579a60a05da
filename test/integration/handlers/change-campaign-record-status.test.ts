/**
 * The real change-campaign-record-status entry point against the simulator and moto. Only
 * `Leads` and `Callbacks` exist: a message naming `Closed` is answered FAILED (retryable).
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
import { seedRecord } from './support/seed-data';

const ACTION = 'change-campaign-record-status';
/** 2030-01-01T00:00:00Z */
const LATER = 1_893_456_000_000;
const { harness, handler } = handlerHarness(ACTION, {
  simulator: { campaigns: ['Leads', 'Callbacks'] },
});

const stateOf = (clientId: string) => harness.sim.state.findByClientId('Leads', clientId);

describe('change-campaign-record-status over SQS', () => {
  it('sets the state and its routing options', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const record = sqsRecord({
      campaignName: 'Leads',
      clientId: 'c-1',
      previewRecordStateEnum: 'WORKED',
      nextEarliestWorkTimeUTC: LATER,
      timeZone: 'Europe/Berlin',
      skillQueue: 'Retention',
    });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(stateOf('c-1')).toMatchObject({
      workedState: 'WORKED',
      nextEarliestWorkTimeMillis: LATER,
      timeZone: 'Europe/Berlin',
      skillQueue: 'Retention',
    });
    expect(await harness.deadLetters()).toEqual([]);
  });

  it('dead-letters WORKED without nextEarliestWorkTimeUTC before calling the platform', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const record = sqsRecord({
      campaignName: 'Leads',
      clientId: 'c-1',
      previewRecordStateEnum: 'WORKED',
    });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_MESSAGE',
      errorMessage: 'nextEarliestWorkTimeUTC: is required when previewRecordStateEnum is WORKED',
    });
    expect(harness.sim.stats.requests).toBe(0);
  });

  it('dead-letters NORECORDFOUND at once: a wrong id is permanent for a status change', async () => {
    // Prepare
    const record = sqsRecord({
      campaignName: 'Leads',
      previewRecordId: 'PR-unknown',
      previewRecordStateEnum: 'COMPLETED',
    });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'NORECORDFOUND',
      errorMessage: 'no record found for the supplied previewRecordId',
    });
    expect(harness.sim.stats.endpoint('changeCampaignRecordStatus').requests).toBe(1);
  });

  it('dead-letters a network failure on the last receive, with its reason', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    harness.sim.setFaults({ connectionResetRate: 1 });
    const record = sqsRecord(
      { campaignName: 'Leads', clientId: 'c-1', previewRecordStateEnum: 'COMPLETED' },
      { receiveCount: MAX_RECEIVE_COUNT + 1 },
    );

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'retryable',
      errorCode: 'NETWORK_ERROR',
      errorMessage: `gave up after receive ${MAX_RECEIVE_COUNT + 1}: changeCampaignRecordStatus: network error`,
    });
  });

  it('succeeds again on a redelivery: setting a state twice is naturally idempotent', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const message = { campaignName: 'Leads', clientId: 'c-1', previewRecordStateEnum: 'REMOVED' };
    const first = await deliverLosingResponse(harness, handler, message, 'm-1');

    // Act
    const redelivery = await handler(
      sqsEvent(sqsRecord(message, { messageId: 'm-1', receiveCount: 2 })),
      lambdaContext(),
    );

    // Assess
    expect(failedIds(first)).toEqual(['m-1']);
    expect(failedIds(redelivery)).toEqual([]);
    expect(stateOf('c-1')?.workedState).toBe('REMOVED');
  });
});

describe('change-campaign-record-status over EventBridge', () => {
  it('prefers the message correlationId over the event id of an SQS-wrapped event', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const detail = {
      correlationId: 'crm-task-77',
      campaignName: 'Leads',
      clientId: 'c-1',
      previewRecordStateEnum: 'COMPLETED',
    };
    const record = sqsRecord(eventBridgeEvent(ACTION, detail, 'evt-1'));

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(stateOf('c-1')?.workedState).toBe('COMPLETED');
    expect(outcomeLines(harness).get('crm-task-77')).toMatchObject({
      messageId: record.messageId,
      code: 'SUCCESS',
    });
  });

  it('applies a direct EventBridge event; dead-letters one for an unknown id and one that would wait', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const good = eventBridgeEvent(ACTION, {
      campaignName: 'Leads',
      clientId: 'c-1',
      previewRecordStateEnum: 'COMPLETED',
    });
    // Addressed by previewRecordId only: no add can be on its way for it, so it is not waited for.
    const unknown = eventBridgeEvent(
      ACTION,
      { campaignName: 'Leads', previewRecordId: 'p-404', previewRecordStateEnum: 'COMPLETED' },
      'evt-404',
    );
    const notYet = eventBridgeEvent(
      ACTION,
      { campaignName: 'Leads', clientId: 'c-404', previewRecordStateEnum: 'COMPLETED' },
      'evt-not-yet',
    );

    // Act
    const results = [
      await handler(good, lambdaContext()),
      await handler(unknown, lambdaContext()),
      await handler(notYet, lambdaContext()),
    ];

    // Assess: a direct event cannot wait for its add (Lambda's async retries would lose it), so
    // it goes to the DLQ with the reason, for a redrive once the record is there
    expect(results).toEqual([undefined, undefined, undefined]);
    expect(stateOf('c-1')?.workedState).toBe('COMPLETED');
    await expectDeadLetterCodes(harness, {
      'evt-404': 'NORECORDFOUND',
      'evt-not-yet': 'RECORD_NOT_YET_THERE',
    });
  });
});

describe('change-campaign-record-status mixed batch', () => {
  it('reports exactly the retryable record as failed', async () => {
    // Prepare
    seedRecord(harness, 'c-ok');
    seedRecord(harness, 'c-wrapped');
    const records = [
      sqsRecord(
        { campaignName: 'Leads', clientId: 'c-ok', previewRecordStateEnum: 'COMPLETED' },
        { messageId: 'ok' },
      ),
      sqsRecord(
        { campaignName: 'Leads', previewRecordId: 'p-404', previewRecordStateEnum: 'COMPLETED' },
        { messageId: 'unknown' },
      ),
      sqsRecord(
        { campaignName: 'Leads', clientId: 'c-404', previewRecordStateEnum: 'COMPLETED' },
        { messageId: 'not-yet' },
      ),
      sqsRecord(
        { campaignName: 'Leads', clientId: 'c-ok', previewRecordStateEnum: 'DONE' },
        { messageId: 'invalid' },
      ),
      sqsRecord(
        eventBridgeEvent(ACTION, {
          campaignName: 'Leads',
          clientId: 'c-wrapped',
          previewRecordStateEnum: 'REMOVED',
        }),
        { messageId: 'wrapped' },
      ),
      sqsRecord(
        { campaignName: 'Closed', clientId: 'c-1', previewRecordStateEnum: 'COMPLETED' },
        { messageId: 'flaky' },
      ),
      sqsRecord(
        { campaignName: 'Closed', clientId: 'c-2', previewRecordStateEnum: 'COMPLETED' },
        { messageId: 'last-try', receiveCount: MAX_RECEIVE_COUNT },
      ),
    ];

    // Act
    const response = await handler(sqsEvent(...records), lambdaContext());

    // Assess
    expect(failedIds(response).sort()).toEqual(['flaky', 'not-yet']);
    const letters = await expectDeadLetterCodes(harness, {
      invalid: 'INVALID_MESSAGE',
      'last-try': 'FAILED',
      unknown: 'NORECORDFOUND',
    });
    expect(outcomeLines(harness).get('not-yet')?.code).toBe('RECORD_NOT_YET_THERE');
    expect(letters.get('invalid')?.attributes.errorMessage).toContain('previewRecordStateEnum');
    expect(letters.get('last-try')?.attributes.errorCategory).toBe('retryable');
    expect(stateOf('c-ok')?.workedState).toBe('COMPLETED');
    expect(stateOf('c-wrapped')?.workedState).toBe('REMOVED');
  });
});
