/**
 * What only the change-campaign-record-status entry point does, against the simulator and
 * moto: the routing options of a state, the message's own correlation id, and a direct event
 * that cannot wait for its record. Its refusals, retries, EventBridge delivery and mixed batch
 * run with every action's in the every-action tables.
 */
import { describe, expect, it } from 'vitest';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { expectDeadLetterCodes, outcomeLines } from './support/expectations';
import { handlerHarness } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { stateChange } from './support/messages';
import { seedRecord } from './support/seed-data';

const ACTION = 'change-campaign-record-status';
/** 2030-01-01T00:00:00Z */
const LATER = 1_893_456_000_000;
const { harness, handler } = handlerHarness(ACTION);

const stateOf = (clientId: string) => harness.sim.state.findByClientId('Leads', clientId);

describe('change-campaign-record-status over SQS', () => {
  it('sets the state and its routing options', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const record = sqsRecord(
      stateChange('c-1', 'WORKED', {
        nextEarliestWorkTimeUTC: LATER,
        timeZone: 'Europe/Berlin',
        skillQueue: 'Retention',
      }),
    );

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
});

describe('change-campaign-record-status over EventBridge', () => {
  it('prefers the message correlationId over the event id of an SQS-wrapped event', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const detail = { correlationId: 'crm-task-77', ...stateChange('c-1') };
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

  it('applies a direct EventBridge event, keeps one whose record is not there, dead-letters one for an unknown id', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
    const good = eventBridgeEvent(ACTION, stateChange('c-1'));
    // Addressed by a previewRecordId no campaign holds and the ledger has not seen.
    const unknown = eventBridgeEvent(
      ACTION,
      { campaignName: 'Leads', previewRecordId: 'p-404', previewRecordStateEnum: 'COMPLETED' },
      'evt-404',
    );
    const notYet = eventBridgeEvent(ACTION, stateChange('c-404'), 'evt-not-yet');

    // Act
    const results = [
      await handler(good, lambdaContext()),
      await handler(unknown, lambdaContext()),
      await handler(notYet, lambdaContext()),
    ];

    // Assess: a direct event cannot wait (Lambda's async retries would lose it), so the unknown
    // id goes to the DLQ with its reason, for a redrive; the change of a record not there yet is
    // kept in the ledger, to take effect if its add comes
    expect(results).toEqual([undefined, undefined, undefined]);
    expect(stateOf('c-1')?.workedState).toBe('COMPLETED');
    await expectDeadLetterCodes(harness, { 'evt-404': 'RECORD_ID_UNRESOLVED' });
    expect(outcomeLines(harness).get('evt-not-yet')?.code).toBe('NO_EFFECT');
  });
});
