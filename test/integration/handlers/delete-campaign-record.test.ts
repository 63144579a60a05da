/**
 * The real delete-campaign-record entry point against the simulator and moto. Only the
 * campaigns `Leads` and `Callbacks` exist: a message naming `Closed` is answered FAILED, the
 * per-message retryable failure a mixed batch needs.
 */
import { describe, expect, it } from 'vitest';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import {
  bySource,
  expectDeadLetter,
  expectDeadLettered,
  outcomeLines,
} from './support/expectations';
import { handlerHarness, MAX_RECEIVE_COUNT } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { seedRecord } from './support/seed-data';

const ACTION = 'delete-campaign-record';
const { harness, handler } = handlerHarness(ACTION, {
  simulator: { campaigns: ['Leads', 'Callbacks'] },
});

describe('delete-campaign-record over SQS', () => {
  it('deletes the record and reports no failure', async () => {
    // Prepare
    const seeded = seedRecord(harness, 'c-1');
    const record = sqsRecord({ campaignName: 'Leads', previewRecordId: seeded.previewRecordID });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(harness.sim.state.findByClientId('Leads', 'c-1')).toBeUndefined();
    expect(await harness.deadLetters()).toEqual([]);
    expect(outcomeLines(harness).get(record.messageId)).toMatchObject({
      action: ACTION,
      code: 'SUCCESS',
      category: 'success',
    });
  });

  it('dead-letters a message without a locator, naming the field, body unchanged', async () => {
    // Prepare
    const record = sqsRecord('{"campaignName": "Leads",  "correlationId": "corr-no-id"}');

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    const [letter, ...others] = await harness.deadLetters(1);
    expect(others).toEqual([]);
    expectDeadLetter(letter, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_MESSAGE',
      errorMessage: 'clientId: either previewRecordId or clientId is required',
      correlationId: 'corr-no-id',
    });
    expect(harness.sim.stats.requests).toBe(0);
  });

  it('dead-letters a body that is not JSON', async () => {
    // Prepare
    const record = sqsRecord('campaignName=Leads&clientId=c-1');

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_JSON',
      errorMessage: 'not valid JSON',
    });
  });
});

describe('delete-campaign-record idempotency', () => {
  it('treats a record already gone as done (ALREADY_ABSENT), not a failure', async () => {
    // Prepare
    const record = sqsRecord({ campaignName: 'Leads', clientId: 'c-gone' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(await harness.deadLetters()).toEqual([]);
    expect(outcomeLines(harness).get(record.messageId)).toMatchObject({
      code: 'ALREADY_ABSENT',
      category: 'success',
    });
  });
});

describe('delete-campaign-record over EventBridge', () => {
  it('unwraps an EventBridge event delivered through SQS; the event id is the correlation id', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const event = eventBridgeEvent(ACTION, { campaignName: 'Leads', clientId: 'c-1' }, 'evt-1');
    const record = sqsRecord(event);

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(harness.sim.state.findByClientId('Leads', 'c-1')).toBeUndefined();
    expect(outcomeLines(harness).get('evt-1')).toMatchObject({
      messageId: record.messageId,
      code: 'SUCCESS',
    });
  });

  it('applies a direct EventBridge event', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const event = eventBridgeEvent(ACTION, { campaignName: 'Leads', clientId: 'c-1' });

    // Act
    const result = await handler(event, lambdaContext());

    // Assess
    expect(result).toBeUndefined();
    expect(harness.sim.state.findByClientId('Leads', 'c-1')).toBeUndefined();
  });

  it('dead-letters a direct EventBridge event the schema rejects: the whole event is the body', async () => {
    // Prepare
    const event = eventBridgeEvent(ACTION, { campaignName: '' }, 'evt-bad');

    // Act
    const result = await handler(event, lambdaContext());

    // Assess
    expect(result).toBeUndefined();
    await expectDeadLettered(harness, {
      source: event,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_MESSAGE',
      errorMessage: 'campaignName: must not be empty',
    });
  });

  it('refuses a direct invocation: a write has no answer to return', async () => {
    // Act
    const invoking = handler({ campaignName: 'Leads', clientId: 'c-1' }, lambdaContext());

    // Assess
    await expect(invoking).rejects.toMatchObject({
      name: 'ActionFailedError',
      code: 'UNSUPPORTED_EVENT',
    });
    expect(harness.sim.stats.requests).toBe(0);
  });
});

describe('delete-campaign-record mixed batch', () => {
  it('reports exactly the retryable record as failed and dead-letters the rest with reasons', async () => {
    // Prepare
    seedRecord(harness, 'c-ok');
    seedRecord(harness, 'c-wrapped');
    const records = {
      ok: sqsRecord({ campaignName: 'Leads', clientId: 'c-ok' }, { messageId: 'ok' }),
      gone: sqsRecord({ campaignName: 'Leads', clientId: 'c-gone' }, { messageId: 'gone' }),
      invalid: sqsRecord({ campaignName: 'Leads' }, { messageId: 'invalid' }),
      notJson: sqsRecord('<delete/>', { messageId: 'not-json' }),
      wrapped: sqsRecord(
        eventBridgeEvent(ACTION, { campaignName: 'Leads', clientId: 'c-wrapped' }, 'evt-w'),
        { messageId: 'wrapped' },
      ),
      misrouted: sqsRecord(eventBridgeEvent('delete-user', { loginUserId: 'someone' }, 'evt-m'), {
        messageId: 'misrouted',
      }),
      flaky: sqsRecord({ campaignName: 'Closed', clientId: 'c-1' }, { messageId: 'flaky' }),
      lastTry: sqsRecord(
        { campaignName: 'Closed', clientId: 'c-2' },
        { messageId: 'last-try', receiveCount: MAX_RECEIVE_COUNT },
      ),
    };

    // Act
    const response = await handler(sqsEvent(...Object.values(records)), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual(['flaky']);
    const letters = bySource(await harness.deadLetters(4));
    expect([...letters.keys()].sort()).toEqual(['invalid', 'last-try', 'misrouted', 'not-json']);
    expect(letters.get('invalid')?.attributes.errorCode).toBe('INVALID_MESSAGE');
    expect(letters.get('not-json')?.attributes.errorCode).toBe('INVALID_JSON');
    expect(letters.get('misrouted')?.attributes).toMatchObject({
      errorCode: 'WRONG_DETAIL_TYPE',
      correlationId: 'misrouted',
    });
    expectDeadLetter(letters.get('last-try'), {
      source: records.lastTry,
      action: ACTION,
      errorCategory: 'retryable',
      errorCode: 'FAILED',
      errorMessage: 'campaign not found',
    });
    expect(harness.sim.state.listRecords('Leads')).toEqual([]);
    const lines = outcomeLines(harness);
    expect(lines.get('gone')?.code).toBe('ALREADY_ABSENT');
    expect(lines.get('evt-w')?.code).toBe('SUCCESS');
    expect(lines.get('flaky')).toMatchObject({ code: 'FAILED', category: 'retryable' });
  });
});
