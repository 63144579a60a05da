/**
 * The real transfer-campaign-record entry point against the simulator and moto. Only `Leads`
 * and `Callbacks` exist: naming `Closed` is answered FAILED (retryable).
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

const ACTION = 'transfer-campaign-record';
const { harness, handler } = handlerHarness(ACTION, {
  simulator: { campaigns: ['Leads', 'Callbacks'] },
});

const campaignOf = (clientId: string): string | undefined =>
  ['Leads', 'Callbacks'].find((name) => harness.sim.state.findByClientId(name, clientId));

const transfer = (clientId: string, extra: Record<string, unknown> = {}) => ({
  campaignName: 'Leads',
  clientId,
  transferToCampaign: 'Callbacks',
  ...extra,
});

describe('transfer-campaign-record over SQS', () => {
  it('moves the record to the destination campaign with the given routing', async () => {
    // Prepare
    const seeded = seedRecord(harness, 'c-1');
    const record = sqsRecord(
      transfer('c-1', { skillQueue: 'Callbacks', preferredAgent: 'agent-7' }),
    );

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(harness.sim.state.findByClientId('Callbacks', 'c-1')).toMatchObject({
      previewRecordID: seeded.previewRecordID,
      skillQueue: 'Callbacks',
      preferredAgent: 'agent-7',
    });
    expect(await harness.deadLetters()).toEqual([]);
  });

  it('dead-letters a message without transferToCampaign, naming it', async () => {
    // Prepare
    const record = sqsRecord({ campaignName: 'Leads', clientId: 'c-1' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_MESSAGE',
      errorMessage: 'transferToCampaign: is required',
    });
  });

  it('waits for a record in neither campaign, and dead-letters it on the last receive', async () => {
    // Prepare: its add may still be on its way in another queue
    const early = sqsRecord(transfer('c-nowhere'));
    const last = sqsRecord(transfer('c-nowhere'), { receiveCount: MAX_RECEIVE_COUNT });

    // Act
    const first = await handler(sqsEvent(early), lambdaContext());
    const final = await handler(sqsEvent(last), lambdaContext());

    // Assess
    expect(failedIds(first)).toEqual([early.messageId]);
    expect(failedIds(final)).toEqual([]);
    await expectDeadLettered(harness, {
      source: last,
      action: ACTION,
      errorCategory: 'retryable',
      errorCode: 'RECORD_NOT_YET_THERE',
      errorMessage: 'its add may still be on its way',
    });
  });

  it('dead-letters a malformed platform answer on the last receive, with its reason', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    harness.sim.setFaults({ malformedBodyRate: 1 });
    const record = sqsRecord(transfer('c-1'), { receiveCount: MAX_RECEIVE_COUNT });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'retryable',
      errorCode: 'MALFORMED_RESPONSE',
      errorMessage: `gave up after receive ${MAX_RECEIVE_COUNT}: transferCampaignRecord: HTTP 200 but the body is not JSON`,
    });
  });
});

describe('transfer-campaign-record idempotency', () => {
  it('dead-letters a transfer whose destination holds a record it did not move there', async () => {
    // Prepare
    seedRecord(harness, 'c-1', 'Callbacks');
    const record = sqsRecord(transfer('c-1'));

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'TRANSFER_TARGET_OCCUPIED',
      errorMessage: 'check both campaigns',
    });
  });

  it('succeeds (ALREADY_TRANSFERRED) on the redelivery after its own transfer response was lost', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const message = transfer('c-1');
    const first = await deliverLosingResponse(harness, handler, message, 'm-2');

    // Act
    const redelivery = await handler(
      sqsEvent(sqsRecord(message, { messageId: 'm-2', receiveCount: 2 })),
      lambdaContext(),
    );

    // Assess
    expect(failedIds(first)).toEqual(['m-2']);
    expect(failedIds(redelivery)).toEqual([]);
    expect(campaignOf('c-1')).toBe('Callbacks');
    expect(outcomeLines(harness).get('m-2')?.code).toBe('ALREADY_TRANSFERRED');
  });
});

describe('transfer-campaign-record over EventBridge', () => {
  it('applies an SQS-wrapped event and a direct event', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    seedRecord(harness, 'c-2');
    const wrapped = sqsRecord(eventBridgeEvent(ACTION, transfer('c-1')));
    const direct = eventBridgeEvent(ACTION, transfer('c-2'));

    // Act
    const batch = await handler(sqsEvent(wrapped), lambdaContext());
    const single = await handler(direct, lambdaContext());

    // Assess
    expect(failedIds(batch)).toEqual([]);
    expect(single).toBeUndefined();
    expect([campaignOf('c-1'), campaignOf('c-2')]).toEqual(['Callbacks', 'Callbacks']);
  });
});

describe('transfer-campaign-record mixed batch', () => {
  it('reports exactly the retryable record as failed', async () => {
    // Prepare
    seedRecord(harness, 'c-ok');
    seedRecord(harness, 'c-done', 'Callbacks');
    seedRecord(harness, 'c-flaky');
    seedRecord(harness, 'c-last');
    const records = [
      sqsRecord(transfer('c-ok'), { messageId: 'ok' }),
      sqsRecord(transfer('c-done'), { messageId: 'done' }),
      sqsRecord(transfer('c-nowhere'), { messageId: 'nowhere' }),
      sqsRecord(transfer('c-ok', { transferToCampaign: '' }), { messageId: 'invalid' }),
      sqsRecord(transfer('c-flaky', { transferToCampaign: 'Closed' }), { messageId: 'flaky' }),
      sqsRecord(transfer('c-last', { transferToCampaign: 'Closed' }), {
        messageId: 'last-try',
        receiveCount: MAX_RECEIVE_COUNT,
      }),
    ];

    // Act
    const response = await handler(sqsEvent(...records), lambdaContext());

    // Assess
    expect(failedIds(response).sort()).toEqual(['flaky', 'nowhere']);
    await expectDeadLetterCodes(harness, {
      invalid: 'INVALID_MESSAGE',
      'last-try': 'FAILED',
      done: 'TRANSFER_TARGET_OCCUPIED',
    });
    expect(outcomeLines(harness).get('nowhere')?.code).toBe('RECORD_NOT_YET_THERE');
    expect([campaignOf('c-ok'), campaignOf('c-flaky'), campaignOf('c-last')]).toEqual([
      'Callbacks',
      'Leads',
      'Leads',
    ]);
  });
});
