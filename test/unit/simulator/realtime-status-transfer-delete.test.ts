import { beforeEach, describe, expect, it } from 'vitest';
import { WORKED_STATES } from '../../../local/simulator';
import {
  common,
  realtime,
  statusOf,
  T0,
  useClockedTestSimulator,
  withTestSimulator,
} from './simulator-support';

describe('simulator: status change, transfer, delete', () => {
  const { sim, clock } = useClockedTestSimulator();

  beforeEach(() => {
    sim.state.putRecord({
      campaignName: 'Leads',
      clientId: 'crm-1',
      previewRecordID: 'PR-1',
      preferredAgent: 'agent.a',
      skillQueue: 'Sales',
      timeZone: 'Europe/Berlin',
      nextEarliestWorkTime: T0,
      previewRecordData: [{ key: 'Name', value: 'Ann' }],
    });
  });

  describe('changeCampaignRecordStatus', () => {
    const change = (fields: Record<string, unknown>) =>
      realtime(sim, 'changeCampaignRecordStatus', { ...common('Leads'), ...fields });

    it.each(WORKED_STATES)('sets %s', async (state) => {
      // Act
      const reply = await change({
        clientId: 'crm-1',
        previewRecordStateEnum: state,
        nextEarliestWorkTimeUTC: T0 + 1000,
      });

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(reply.json.previewResult?.error).toBeNull();
      expect(sim.state.findByClientId('Leads', 'crm-1')).toMatchObject({
        workedState: state,
        nextEarliestWorkTimeMillis: T0 + 1000,
        appliedCount: 1,
      });
    });

    it('answers FAILED for WORKED without nextEarliestWorkTimeUTC and changes nothing', async () => {
      // Act
      const reply = await change({ clientId: 'crm-1', previewRecordStateEnum: 'WORKED' });

      // Assess
      expect(statusOf(reply)).toBe('FAILED');
      expect(reply.json.previewResult?.error).toMatch(/nextEarliestWorkTimeUTC/);
      expect(sim.state.findByClientId('Leads', 'crm-1')).toMatchObject({
        workedState: 'NOTWORKED',
        appliedCount: 0,
      });
    });

    it('leaves omitted optional fields unchanged and clears preferredAgent with ""', async () => {
      // Act
      const reply = await change({
        clientId: 'crm-1',
        previewRecordStateEnum: 'COMPLETED',
        preferredAgent: '',
      });

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(sim.state.findByClientId('Leads', 'crm-1')).toMatchObject({
        workedState: 'COMPLETED',
        preferredAgent: null,
        skillQueue: 'Sales',
        timeZone: 'Europe/Berlin',
        nextEarliestWorkTimeMillis: T0,
        previewRecordData: [{ key: 'Name', value: 'Ann', displayOrder: 1 }],
      });
    });

    it.each([
      ['previewRecordId', { previewRecordId: 'NOPE', clientId: 'crm-1' }],
      ['clientId', { clientId: 'nope' }],
    ])('answers NORECORDFOUND for an unknown %s', async (_label, locator) => {
      // Act
      const reply = await change({ ...locator, previewRecordStateEnum: 'COMPLETED' });

      // Assess
      expect(statusOf(reply)).toBe('NORECORDFOUND');
      expect(sim.state.findByClientId('Leads', 'crm-1')?.workedState).toBe('NOTWORKED');
    });

    it.each([
      ['an unknown state', { clientId: 'crm-1', previewRecordStateEnum: 'DONE' }],
      ['a missing state', { clientId: 'crm-1' }],
      ['no locator', { previewRecordStateEnum: 'COMPLETED' }],
      [
        'an invalid timeZone',
        { clientId: 'crm-1', previewRecordStateEnum: 'COMPLETED', timeZone: 'Mars/Base' },
      ],
      [
        'an empty skillQueue',
        { clientId: 'crm-1', previewRecordStateEnum: 'COMPLETED', skillQueue: '' },
      ],
    ])('answers FAILED for %s', async (_label, fields) => {
      // Act
      const reply = await change(fields);

      // Assess
      expect(statusOf(reply)).toBe('FAILED');
      expect(sim.state.findByClientId('Leads', 'crm-1')?.appliedCount).toBe(0);
    });
  });

  describe('transferCampaignRecord', () => {
    const transfer = (fields: Record<string, unknown>) =>
      realtime(sim, 'transferCampaignRecord', { ...common('Leads'), ...fields });

    it('moves the record, keeping previewRecordID, clientId, state and data; creates the destination', async () => {
      // Prepare
      sim.state.recordAttempt('Leads', { clientId: 'crm-1' }, { agent: 'agent.z', at: T0 + 1 });

      // Act
      const reply = await transfer({ clientId: 'crm-1', transferToCampaign: 'Retention' });

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(sim.state.findByClientId('Leads', 'crm-1')).toBeUndefined();
      expect(sim.state.listCampaigns()).toContain('Retention');
      expect(sim.state.findByClientId('Retention', 'crm-1')).toMatchObject({
        previewRecordID: 'PR-1',
        campaignName: 'Retention',
        workedState: 'WORKED',
        workAttempts: 1,
        preferredAgent: 'agent.a',
        skillQueue: 'Sales',
        createdTime: '2023-11-14 22:13:20.000',
        previewRecordData: [{ key: 'Name', value: 'Ann', displayOrder: 1 }],
        appliedCount: 1,
      });
    });

    it('answers NORECORDFOUND when repeated after it was done', async () => {
      // Prepare
      await transfer({ clientId: 'crm-1', transferToCampaign: 'Retention' });

      // Act
      const again = await transfer({ clientId: 'crm-1', transferToCampaign: 'Retention' });

      // Assess
      expect(statusOf(again)).toBe('NORECORDFOUND');
      expect(sim.state.findByClientId('Retention', 'crm-1')?.appliedCount).toBe(1);
    });

    it('answers FAILED when the destination is the current campaign', async () => {
      // Act
      const reply = await transfer({ clientId: 'crm-1', transferToCampaign: 'Leads' });

      // Assess
      expect(statusOf(reply)).toBe('FAILED');
      expect(sim.state.findByClientId('Leads', 'crm-1')).toBeDefined();
    });

    it('answers FAILED when the destination already has the clientId', async () => {
      // Prepare
      sim.state.putRecord({ campaignName: 'Retention', clientId: 'crm-1' });

      // Act
      const reply = await transfer({ clientId: 'crm-1', transferToCampaign: 'Retention' });

      // Assess
      expect(statusOf(reply)).toBe('FAILED');
      expect(sim.state.findByClientId('Leads', 'crm-1')?.previewRecordID).toBe('PR-1');
    });

    it.each([
      ['no transferToCampaign', { clientId: 'crm-1' }],
      ['no locator', { transferToCampaign: 'Retention' }],
    ])('answers FAILED for %s', async (_label, fields) => {
      // Act
      const reply = await transfer(fields);

      // Assess
      expect(statusOf(reply)).toBe('FAILED');
      expect(sim.state.findByClientId('Leads', 'crm-1')).toBeDefined();
    });

    it('answers NORECORDFOUND for an unknown clientId', async () => {
      // Act
      const reply = await transfer({ clientId: 'nope', transferToCampaign: 'Retention' });

      // Assess
      expect(statusOf(reply)).toBe('NORECORDFOUND');
    });

    it('answers FAILED for a destination outside a fixed campaign list', async () => {
      // Prepare
      await withTestSimulator({ campaigns: ['Leads'] }, async (fixed) => {
        fixed.state.putRecord({ campaignName: 'Leads', clientId: 'crm-1' });

        // Act
        const reply = await realtime(fixed, 'transferCampaignRecord', {
          ...common('Leads'),
          clientId: 'crm-1',
          transferToCampaign: 'Retention',
        });

        // Assess
        expect(statusOf(reply)).toBe('FAILED');
        expect(fixed.state.findByClientId('Leads', 'crm-1')).toBeDefined();
      });
    });
  });

  // Both actions carry the same scheduling fields; a transfer applies them in the destination.
  it.each([
    {
      action: 'changeCampaignRecordStatus',
      fields: {
        previewRecordStateEnum: 'NOTWORKED',
        skillQueue: 'Support',
        preferredAgent: 'agent.b',
        nextEarliestWorkTimeUTC: T0 + 5,
        timeZone: 'America/New_York',
      },
      landsIn: 'Leads',
      expected: {
        skillQueue: 'Support',
        preferredAgent: 'agent.b',
        nextEarliestWorkTimeMillis: T0 + 5,
        timeZone: 'America/New_York',
        lastUpdatedTime: '2023-11-14 22:14:20.000',
      },
    },
    {
      action: 'transferCampaignRecord',
      fields: {
        transferToCampaign: 'Retention',
        skillQueue: 'Winback',
        preferredAgent: '',
        nextEarliestWorkTimeUTC: T0 + 9,
        timeZone: 'Asia/Tokyo',
      },
      landsIn: 'Retention',
      expected: {
        skillQueue: 'Winback',
        preferredAgent: null,
        nextEarliestWorkTimeMillis: T0 + 9,
        timeZone: 'Asia/Tokyo',
        lastUpdatedTime: '2023-11-14 22:14:20.000',
      },
    },
  ] as const)(
    '$action applies skillQueue, preferredAgent ("" clears), nextEarliestWorkTimeUTC and timeZone',
    async ({ action, fields, landsIn, expected }) => {
      // Prepare: a minute on, so lastUpdatedTime shows the action touched the record.
      clock.advance(60_000);

      // Act
      const reply = await realtime(sim, action, {
        ...common('Leads'),
        previewRecordId: 'PR-1',
        ...fields,
      });

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(sim.state.findByClientId(landsIn, 'crm-1')).toMatchObject(expected);
    },
  );

  describe('deleteRecordFromCampaign', () => {
    const remove = (fields: Record<string, unknown>) =>
      realtime(sim, 'deleteRecordFromCampaign', { ...common('Leads'), ...fields });

    it('removes the record; a repeat answers NORECORDFOUND', async () => {
      // Act
      const first = await remove({ previewRecordId: 'PR-1' });
      const second = await remove({ previewRecordId: 'PR-1' });

      // Assess
      expect(statusOf(first)).toBe('SUCCESS');
      expect(statusOf(second)).toBe('NORECORDFOUND');
      expect(sim.state.listRecords('Leads')).toEqual([]);
      expect(sim.state.listCampaigns()).toContain('Leads');
      expect(sim.state.appliedCount('PR-1')).toBe(1);
      expect(sim.state.history.map((op) => op.action)).toEqual(['deleteRecordFromCampaign']);
    });

    it('removes by clientId, and the record is not found by search afterwards', async () => {
      // Act
      const reply = await remove({ clientId: 'crm-1' });
      const search = await realtime(sim, 'searchPreviewCampaign', {
        ...common('Leads'),
        clientId: 'crm-1',
      });

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(statusOf(search)).toBe('NORECORDFOUND');
    });

    it('answers FAILED without a locator', async () => {
      // Act
      const reply = await remove({});

      // Assess
      expect(statusOf(reply)).toBe('FAILED');
      expect(sim.state.listRecords('Leads')).toHaveLength(1);
    });
  });
});
