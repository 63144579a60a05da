/**
 * The seven ways the first version left the platform in the wrong state, each run through the
 * real entry points against the simulator, with the entity ledger on moto's DynamoDB. Every one
 * of them passed a message "successfully" while the platform ended wrong.
 */
import { describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { expectDeadLettered, outcomeLines } from '../handlers/support/expectations';
import { harnessPerFile, MAX_RECEIVE_COUNT } from '../handlers/support/handler-harness';
import { failedIds } from '../handlers/support/lambda-events';
import { seedRecord, seedUser } from '../handlers/support/seed-data';

const harness = harnessPerFile();

const at = (minute: number): string => new Date(Date.UTC(2026, 10, 24, 9, minute)).toISOString();

const lead = (clientId: string, name: string, minute: number, extra: object = {}) => ({
  correlationId: `${clientId}-${name}-${minute}`,
  occurredAt: at(minute),
  campaignName: 'Leads',
  clientId,
  previewRecordData: [{ key: 'Name', value: name }],
  ...extra,
});

const hire = (loginUserId: string, minute: number) => ({
  correlationId: `join-${minute}`,
  occurredAt: at(minute),
  loginUserId,
  firstName: 'Grace',
  lastName: 'Hopper',
  userTemplateName: 'Agent',
});

/** `clientId`'s move from Leads to Nurture (into the skill queue Retention), queued. */
const moveToNurture = (clientId: string) =>
  sqsRecord({
    correlationId: `move-${clientId}`,
    occurredAt: at(3),
    campaignName: 'Leads',
    clientId,
    transferToCampaign: 'Nurture',
    skillQueue: 'Retention',
  });

const codeOf = (correlationId: string): unknown => outcomeLines(harness).get(correlationId)?.code;

const dataOf = (clientId: string, campaign = 'Leads') =>
  harness.sim.state.findByClientId(campaign, clientId)?.previewRecordData.map((i) => i.value);

describe('the platform ends in the state of each entity newest event', () => {
  it('1: an older update redelivered after a newer one was applied is skipped as stale', async () => {
    // Prepare: v1 fails with HTTP 500 and waits for redelivery; v2 is applied meanwhile
    const upsert = await harness.load('add-or-update-campaign-record');
    harness.sim.setFaults({ serverErrorRate: 1 });
    await upsert(sqsEvent(sqsRecord(lead('c-1', 'v1', 1))), lambdaContext());
    harness.sim.setFaults({});
    await upsert(sqsEvent(sqsRecord(lead('c-1', 'v2', 2))), lambdaContext());

    // Act: v1 again, as SQS redelivers it
    const response = await upsert(
      sqsEvent(sqsRecord(lead('c-1', 'v1', 1), { receiveCount: 2 })),
      lambdaContext(),
    );

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(dataOf('c-1')).toContain('v2');
    expect(codeOf('c-1-v1-1')).toBe('STALE_SKIPPED');
  });

  it('2a: a leaver never stays provisioned when the join is retried after the leave', async () => {
    // Prepare: the join fails with HTTP 500 and waits for redelivery
    const addUser = await harness.load('add-user');
    const deleteUser = await harness.load('delete-user');
    harness.sim.setFaults({ serverErrorRate: 1 });
    const join = sqsRecord(hire('leaver@example.com', 1));
    expect(failedIds(await addUser(sqsEvent(join), lambdaContext()))).toEqual([join.messageId]);
    harness.sim.setFaults({});
    await deleteUser(
      sqsEvent(
        sqsRecord({ correlationId: 'leave', occurredAt: at(2), loginUserId: 'leaver@example.com' }),
      ),
      lambdaContext(),
    );

    // Act: the join's redelivery
    const response = await addUser(
      sqsEvent(sqsRecord(hire('leaver@example.com', 1), { receiveCount: 2 })),
      lambdaContext(),
    );

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(harness.sim.state.findUser('leaver@example.com')).toBeUndefined();
    expect(codeOf('leave')).toBe('ALREADY_ABSENT');
    expect(codeOf('join-1')).toBe('STALE_SKIPPED');
  });

  it('2b: a record whose delete is processed before its add stays deleted', async () => {
    // Prepare
    const upsert = await harness.load('add-or-update-campaign-record');
    const remove = await harness.load('delete-campaign-record');
    await remove(
      sqsEvent(
        sqsRecord({
          correlationId: 'drop',
          occurredAt: at(5),
          campaignName: 'Leads',
          clientId: 'c-2',
        }),
      ),
      lambdaContext(),
    );

    // Act
    const response = await upsert(sqsEvent(sqsRecord(lead('c-2', 'Ada', 4))), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(harness.sim.state.findByClientId('Leads', 'c-2')).toBeUndefined();
    expect(codeOf('c-2-Ada-4')).toBe('STALE_SKIPPED');
  });

  it('3: a transfer that never happened is not acknowledged as done: with nothing to move it has no effect', async () => {
    // Prepare: nothing in Leads; an unrelated record with the same clientId in Nurture
    const transfer = await harness.load('transfer-campaign-record');
    seedRecord(harness, 'c-3', 'Nurture');
    const record = moveToNurture('c-3');

    // Act
    const response = await transfer(sqsEvent(record), lambdaContext());

    // Assess: counted as having no effect (with why), never as transferred; Nurture untouched
    expect(failedIds(response)).toEqual([]);
    expect(codeOf('move-c-3')).toBe('NO_EFFECT');
    expect(harness.sim.state.findByClientId('Nurture', 'c-3')?.skillQueue).not.toBe('Retention');
  });

  it('3b: a transfer into a campaign that holds another record with the clientId is dead-lettered with its reason', async () => {
    // Prepare: the record in Leads, and an unrelated record with the same clientId in Nurture
    const transfer = await harness.load('transfer-campaign-record');
    seedRecord(harness, 'c-3b', 'Leads');
    seedRecord(harness, 'c-3b', 'Nurture');
    const record = moveToNurture('c-3b');

    // Act
    const response = await transfer(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: 'transfer-campaign-record',
      errorCategory: 'permanent',
      errorCode: 'TRANSFER_TARGET_OCCUPIED',
      correlationId: 'move-c-3b',
    });
    expect(harness.sim.state.findByClientId('Leads', 'c-3b')).toBeDefined();
    expect(harness.sim.state.findByClientId('Nurture', 'c-3b')?.skillQueue).not.toBe('Retention');
  });

  it('4: an add-user is not acknowledged for a different person who has the login id', async () => {
    // Prepare: someone this integration never created
    const addUser = await harness.load('add-user');
    seedUser(harness, 'taken@example.com');
    const record = sqsRecord(hire('taken@example.com', 1));

    // Act
    const response = await addUser(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: 'add-user',
      errorCategory: 'permanent',
      errorCode: 'USER_EXISTS_NOT_OURS',
      correlationId: 'join-1',
      errorMessage: 'loginUserId',
    });
  });

  it.each([
    ['in one batch', true],
    ['in two batches', false],
  ])('5: two first deliveries of one add (%s) keep the stored Id item', async (_name, oneBatch) => {
    // Prepare
    const upsert = await harness.load('add-or-update-campaign-record');
    const copy = () => sqsRecord(lead('c-5', 'Ada', 1));

    // Act
    if (oneBatch) await upsert(sqsEvent(copy(), copy()), lambdaContext());
    else {
      await upsert(sqsEvent(copy()), lambdaContext());
      await upsert(sqsEvent(copy()), lambdaContext());
    }

    // Assess
    const record = harness.sim.state.findByClientId('Leads', 'c-5');
    expect(record?.previewRecordData).toContainEqual(
      expect.objectContaining({ key: 'Id', value: 'c-5' }),
    );
    expect(harness.sim.state.appliedCount(record?.previewRecordID ?? '')).toBe(1);
  });

  it('6: a change-status that arrives before its add is kept, and applied when the add comes', async () => {
    // Prepare
    const upsert = await harness.load('add-or-update-campaign-record');
    const status = await harness.load('change-campaign-record-status');
    const first = sqsRecord({
      correlationId: 'done-c-6',
      occurredAt: at(2),
      campaignName: 'Leads',
      clientId: 'c-6',
      previewRecordStateEnum: 'COMPLETED',
    });

    // Act
    const early = await status(sqsEvent(first), lambdaContext());
    const add = await upsert(sqsEvent(sqsRecord(lead('c-6', 'Ada', 1))), lambdaContext());

    // Assess: nothing waited or was dead-lettered; the add brought the change with it
    expect(failedIds(early)).toEqual([]);
    expect(codeOf('done-c-6')).toBe('NO_EFFECT');
    expect(failedIds(add)).toEqual([]);
    expect(harness.sim.state.findByClientId('Leads', 'c-6')?.workedState).toBe('COMPLETED');
    expect(await harness.deadLetters()).toEqual([]);
  });

  it('6b: a change-status for a record that never comes is counted as having no effect, not dead-lettered', async () => {
    // Prepare
    const status = await harness.load('change-campaign-record-status');
    const record = sqsRecord(
      {
        correlationId: 'never-added',
        occurredAt: at(2),
        campaignName: 'Leads',
        clientId: 'c-6b',
        previewRecordStateEnum: 'COMPLETED',
      },
      { receiveCount: MAX_RECEIVE_COUNT },
    );

    // Act
    const response = await status(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(outcomeLines(harness).get('never-added')).toMatchObject({
      code: 'NO_EFFECT',
      category: 'success',
    });
    expect(await harness.deadLetters()).toEqual([]);
  });

  it('7: a redriven dead letter that newer events overtook is skipped as stale', async () => {
    // Prepare: an old update dead-lettered long ago, newer data applied since
    const upsert = await harness.load('add-or-update-campaign-record');
    await upsert(sqsEvent(sqsRecord(lead('c-7', 'new', 9))), lambdaContext());

    // Act: the operator redrives the old message (a new SQS message, receive 1)
    const response = await upsert(sqsEvent(sqsRecord(lead('c-7', 'old', 3))), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(dataOf('c-7')).toContain('new');
    expect(codeOf('c-7-old-3')).toBe('STALE_SKIPPED');
  });
});
