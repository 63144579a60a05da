/**
 * What only the transfer-campaign-record entry point does, against the simulator and moto: the
 * routing a transfer sets, and waiting for a record in neither campaign. Its refusals (an
 * occupied destination), retries, a lost answer, EventBridge delivery and mixed batch run with
 * every action's in the every-action tables.
 */
import { describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { expectDeadLettered } from './support/expectations';
import { handlerHarness, MAX_RECEIVE_COUNT } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { transfer } from './support/messages';
import { seedRecord } from './support/seed-data';

const ACTION = 'transfer-campaign-record';
const { harness, handler } = handlerHarness(ACTION);

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
});
