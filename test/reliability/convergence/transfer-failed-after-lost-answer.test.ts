/**
 * The history the main convergence property found (seed 20261124, run 219), replayed through the
 * real handlers: a record is added; its transfer's first attempt moves it but the answer is
 * lost, and the call's retry is answered FAILED. The call's outcome is a plain failure, yet the
 * move happened. A REMOVED status older than the transfer then arrives, and the transfer is
 * redelivered. The record must end in the destination with the REMOVED status: the ledger has
 * to keep the move in doubt, so the redelivered transfer knows the record there is the one its
 * own earlier attempt moved (not someone else's), and the older status follows it.
 */
import { describe, expect, it } from 'vitest';
import { failedIds } from '../support/harness';
import { replayedHandlers } from './replayed-handlers';

const at = (minute: number): string => new Date(Date.UTC(2026, 10, 24, 8, minute)).toISOString();

const add = {
  correlationId: 'add',
  occurredAt: at(7),
  campaignName: 'Leads',
  clientId: 'c-0',
  previewRecordData: [{ key: 'Name', value: 'Lead c-0 v1' }],
};

const removed = {
  correlationId: 'removed',
  occurredAt: at(34),
  campaignName: 'Leads',
  clientId: 'c-0',
  previewRecordStateEnum: 'REMOVED',
  skillQueue: 'Sales',
};

const transfer = {
  correlationId: 'move',
  occurredAt: at(37),
  campaignName: 'Leads',
  clientId: 'c-0',
  transferToCampaign: 'Nurture',
  skillQueue: 'Retention',
};

/**
 * With this simulator seed, the fault draws after a `setFaults` begin 0.57, 0.36, 0.07: with
 * half the requests failing FAILED and half losing their answer, the first request is applied
 * without an answer and the next two are answered FAILED.
 */
const SEED = 13;
const LOST_THEN_FAILED = { failedStatusRate: 0.5, lostResponseRate: 0.5 };

const { platform, deadLetters, deliver, outcomesLogged } = replayedHandlers(
  ['add-or-update-campaign-record', 'change-campaign-record-status', 'transfer-campaign-record'],
  SEED,
);

describe('a transfer whose first attempt moved the record unanswered and whose retry was answered FAILED', () => {
  it('ends in the destination with the older REMOVED status, read back where the unanswered move took it', async () => {
    // Prepare: the record is in Leads; the transfer's call moves it, loses the answer, then is
    // answered FAILED, so the message fails although the record is in Nurture now
    expect(failedIds(await deliver('add-or-update-campaign-record', add, 'add'))).toEqual([]);
    platform().setFaults(LOST_THEN_FAILED);
    expect(failedIds(await deliver('transfer-campaign-record', transfer, 'move'))).toEqual([
      'move',
    ]);
    platform().setFaults({});
    expect(platform().state.findByClientId('Leads', 'c-0')).toBeUndefined();
    expect(platform().state.findByClientId('Nurture', 'c-0')).toBeDefined();

    // Act: the older status arrives, then SQS redelivers the transfer
    const status = await deliver('change-campaign-record-status', removed, 'removed');
    const moved = await deliver('transfer-campaign-record', transfer, 'move', 2);

    // Assess: the status read back where the record is (the move in doubt) and followed it to
    // Nurture at once; the redelivered transfer then found its move done
    expect(failedIds(status)).toEqual([]);
    expect(failedIds(moved)).toEqual([]);
    const outcomes = outcomesLogged();
    expect(outcomes.get('move')).toEqual(['FAILED', 'ALREADY_APPLIED']);
    expect(outcomes.get('removed')).toEqual(['SUCCESS']);
    expect(deadLetters().entries).toEqual([]);
    expect(platform().state.findByClientId('Leads', 'c-0')).toBeUndefined();
    expect(platform().state.findByClientId('Nurture', 'c-0')).toMatchObject({
      workedState: 'REMOVED',
      skillQueue: 'Retention',
    });
  });
});
