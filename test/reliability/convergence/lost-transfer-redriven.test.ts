/**
 * The history the heavy-fault convergence property found on the first ordering design (seed
 * 20261125, run 11), replayed step by step through the real handlers: during an outage that
 * loses every answer, a record's add lands unanswered and its transfer is dead-lettered; an add
 * older than the transfer arrives after the outage, and then the dead letters are redriven. The
 * record must end once, in the transfer's campaign, with the newest data.
 */
import { describe, expect, it } from 'vitest';
import type { ActionName } from '../../../lambdas/actions';
import { failedIds, fakeContext, sqsEvent } from '../support/harness';
import { MAX_RECEIVE_COUNT } from './convergence-check';
import { replayedHandlers } from './replayed-handlers';

const at = (minute: number): string => new Date(Date.UTC(2026, 10, 24, 8, minute)).toISOString();

const add = (name: string, minute: number) => ({
  correlationId: `add-${name}`,
  occurredAt: at(minute),
  campaignName: 'Leads',
  clientId: 'c-3',
  previewRecordData: [{ key: 'Name', value: name }],
});

const transfer = {
  correlationId: 'move',
  occurredAt: at(30),
  campaignName: 'Leads',
  clientId: 'c-3',
  transferToCampaign: 'Callbacks',
};

const { platform, handler, deadLetters, deliver, outcomesLogged } = replayedHandlers(
  ['add-or-update-campaign-record', 'transfer-campaign-record'],
  7,
);

/** One message on its last receive: a failure is dead-lettered by the handler itself. */
const lastReceive = (action: ActionName, message: object, id: string) =>
  deliver(action, message, id, MAX_RECEIVE_COUNT);

describe('a transfer applied without an answer and dead-lettered during an outage', () => {
  it('ends with the record once, in the destination, holding the newest data, after an older add and the redrive', async () => {
    // Prepare: the add at 08:10 lands but its answer is lost, and so is the answer of the read
    // that would tell; the transfer at 08:30 is not sent while the ledger cannot read back where
    // the record is. Both are dead-lettered on their last receive, with their reasons.
    platform().setFaults({ lostResponseRate: 1 });
    await lastReceive('add-or-update-campaign-record', add('v1', 10), 'add-v1');
    await lastReceive('transfer-campaign-record', transfer, 'move');
    expect(platform().state.findByClientId('Leads', 'c-3')).toBeDefined();
    expect(platform().state.findByClientId('Callbacks', 'c-3')).toBeUndefined();
    expect(deadLetters().entries.map((letter) => letter.reason.action)).toEqual([
      'add-or-update-campaign-record',
      'transfer-campaign-record',
    ]);
    platform().setFaults({});

    // Act: the platform is back; an add from 08:20 (older than the transfer) arrives, the
    // operator redrives both dead letters, and SQS redelivers what failed after its backoff
    const letters = deadLetters().entries.splice(0);
    const bodyOf = (action: ActionName) =>
      letters.find((letter) => letter.reason.action === action)?.body ?? '';
    const upserts = [
      { messageId: 'add-v2', body: JSON.stringify(add('v2', 20)) },
      { messageId: 'redriven-add-v1', body: bodyOf('add-or-update-campaign-record') },
    ];
    const upsert = handler('add-or-update-campaign-record');
    const firstUpserts = await upsert(sqsEvent(upserts), fakeContext());
    const moved = await handler('transfer-campaign-record')(
      sqsEvent([{ messageId: 'redriven-move', body: bodyOf('transfer-campaign-record') }]),
      fakeContext(),
    );

    // Assess: the older add found its own unanswered attempt in place (read back, not sent
    // again), the newer one updated it, and the redriven transfer moved it
    expect(failedIds(firstUpserts)).toEqual([]);
    expect(failedIds(moved)).toEqual([]);
    const outcomes = outcomesLogged();
    expect(outcomes.get('add-v1')).toEqual(['NETWORK_ERROR', 'ALREADY_APPLIED']);
    expect(outcomes.get('add-v2')).toEqual(['SUCCESS']);
    expect(outcomes.get('move')).toEqual(['NETWORK_ERROR', 'SUCCESS']);
    expect(deadLetters().entries.map((letter) => letter.reason.errorCode)).toEqual([]);
    expect(platform().state.findByClientId('Leads', 'c-3')).toBeUndefined();
    expect(
      platform()
        .state.findByClientId('Callbacks', 'c-3')
        ?.previewRecordData.map((item) => item.value),
    ).toContain('v2');
  });
});
