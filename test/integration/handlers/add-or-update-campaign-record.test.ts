/**
 * What only the add-or-update-campaign-record entry point does, against the simulator and moto:
 * where the clientId is stored, and an update replacing all data. Its refusals, retries,
 * EventBridge delivery and mixed batch run with every action's in the every-action tables.
 */
import { describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { handlerHarness } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { lead } from './support/messages';

const { harness, handler } = handlerHarness('add-or-update-campaign-record');

describe('add-or-update-campaign-record over SQS', () => {
  it('adds a new record with the clientId stored under the default Id key', async () => {
    // Prepare
    const record = sqsRecord(lead('c-1', { preferredAgent: 'agent-7' }));

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    const stored = harness.sim.state.findByClientId('Leads', 'c-1');
    expect(stored?.preferredAgent).toBe('agent-7');
    expect(stored?.previewRecordData.map((item) => item.key)).toEqual([
      'Id',
      'Name',
      'MobilePhone',
    ]);
    expect(await harness.deadLetters()).toEqual([]);
  });

  it('replaces all data of an existing record on update', async () => {
    // Prepare
    await handler(sqsEvent(sqsRecord(lead('c-1'))), lambdaContext());
    const update = sqsRecord(
      lead('c-1', { previewRecordData: [{ key: 'Name', value: 'Grace B. Hopper' }] }),
    );

    // Act
    const response = await handler(sqsEvent(update), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(harness.sim.state.listRecords('Leads')).toHaveLength(1);
    expect(harness.sim.state.findByClientId('Leads', 'c-1')?.previewRecordData).toEqual([
      { key: 'Name', value: 'Grace B. Hopper', displayOrder: 1 },
    ]);
  });
});
