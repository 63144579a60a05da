/**
 * What only the delete-campaign-record entry point does, against the simulator and moto: a
 * delete by previewRecordId and its log line, and the refusal of a direct invocation. Its
 * refusals, retries, a record already gone, EventBridge delivery and mixed batch run with every
 * action's in the every-action tables.
 */
import { describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { outcomeLines } from './support/expectations';
import { handlerHarness } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { seedRecord } from './support/seed-data';

const ACTION = 'delete-campaign-record';
const { harness, handler } = handlerHarness(ACTION);

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
});

describe('delete-campaign-record invoked directly', () => {
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
