/**
 * What only the transfer-campaign-record entry point does, against the simulator and moto: the
 * routing a transfer sets, and a transfer that arrives before its record's add. Its refusals (an
 * occupied destination), retries, a lost answer, EventBridge delivery and mixed batch run with
 * every action's in the every-action tables.
 */
import { describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { outcomeLines } from './support/expectations';
import { handlerHarness } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { lead, transfer } from './support/messages';
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

  it('keeps a transfer of a record in neither campaign, and moves it when its add arrives', async () => {
    // Prepare: its add may still be on its way in another queue
    const move = sqsRecord(transfer('c-later', { occurredAt: '2026-11-24T09:10:00.000Z' }));
    const upsert = await harness.load('add-or-update-campaign-record');

    // Act
    const early = await handler(sqsEvent(move), lambdaContext());
    const added = await upsert(
      sqsEvent(sqsRecord(lead('c-later', { occurredAt: '2026-11-24T09:00:00.000Z' }))),
      lambdaContext(),
    );

    // Assess: nothing waited; the add put the record where the transfer took it, in one request
    expect(failedIds(early)).toEqual([]);
    expect(outcomeLines(harness).get(move.messageId)?.code).toBe('NO_EFFECT');
    expect(failedIds(added)).toEqual([]);
    expect(harness.sim.state.findByClientId('Leads', 'c-later')).toBeUndefined();
    expect(harness.sim.state.findByClientId('Callbacks', 'c-later')).toBeDefined();
    expect(harness.sim.stats.endpoint('transferCampaignRecord').requests).toBe(0);
    expect(await harness.deadLetters()).toEqual([]);
  });
});
