import { beforeEach, describe, expect, it } from 'vitest';
import {
  common,
  realtime,
  recordsOf,
  statusOf,
  T0,
  useClockedTestSimulator,
} from './simulator-support';

describe('simulator: searchPreviewCampaign', () => {
  const { sim } = useClockedTestSimulator();

  const search = (fields: Record<string, unknown>, campaignName = 'Leads') =>
    realtime(sim, 'searchPreviewCampaign', { ...common(campaignName), ...fields });

  const criteria = (key: string, condition: string, value: string) => ({
    previewRecordData: [{ key, value, condition }],
  });

  const clientIds = (reply: Awaited<ReturnType<typeof search>>) =>
    recordsOf(reply).map((r) => r.clientId);

  describe('by id', () => {
    it('finds one record by previewRecordId, with every spec field', async () => {
      // Prepare
      const seeded = sim.state.putRecord({
        campaignName: 'Leads',
        clientId: 'crm-1',
        previewRecordData: [{ key: 'Name', value: 'Ann' }],
        preferredAgent: 'agent.a',
        nextEarliestWorkTime: T0 + 1,
      });
      sim.state.recordAttempt(
        'Leads',
        { clientId: 'crm-1' },
        { agent: 'agent.b', at: T0 + 2, workCodes: [{ key: 'Outcome', value: 'Sale' }] },
      );

      // Act
      const reply = await search({ previewRecordId: seeded.previewRecordID });

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(reply.json.previewResult?.error).toBeNull();
      expect(reply.json.previewRecordClientData).toEqual([
        {
          previewRecordID: seeded.previewRecordID,
          clientId: 'crm-1',
          preferredAgent: 'agent.a',
          skillQueue: 'Default',
          createdTime: '2023-11-14 22:13:20.000',
          lastUpdatedTime: '2023-11-14 22:13:20.002',
          nextEarliestWorkTime: '2023-11-14 22:13:20.001',
          workedState: 'WORKED',
          workAttempts: 1,
          lastAttemptAgent: 'agent.b',
          lastAttemptTime: '2023-11-14 22:13:20.002',
          workCodes: [{ key: 'Outcome', value: 'Sale' }],
          previewRecordData: [{ key: 'Name', value: 'Ann', displayOrder: 1 }],
        },
      ]);
    });

    it('finds one record by clientId', async () => {
      // Prepare
      sim.state.putRecord({ campaignName: 'Leads', clientId: 'crm-1' });
      sim.state.putRecord({ campaignName: 'Leads', clientId: 'crm-2' });

      // Act
      const reply = await search({ clientId: 'crm-2' });

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(clientIds(reply)).toEqual(['crm-2']);
    });

    it('ignores clientId when previewRecordId is given', async () => {
      // Prepare
      const a = sim.state.putRecord({ campaignName: 'Leads', clientId: 'a' });
      sim.state.putRecord({ campaignName: 'Leads', clientId: 'b' });

      // Act
      const hit = await search({ previewRecordId: a.previewRecordID, clientId: 'b' });
      const miss = await search({ previewRecordId: 'NOPE', clientId: 'b' });

      // Assess
      expect(clientIds(hit)).toEqual(['a']);
      expect(statusOf(miss)).toBe('NORECORDFOUND');
    });

    it.each([
      ['previewRecordId', { previewRecordId: 'NOPE' }],
      ['clientId', { clientId: 'nope' }],
    ])('answers NORECORDFOUND (in previewResultStatus) for an unknown %s', async (_l, locator) => {
      // Prepare
      sim.state.putRecord({ campaignName: 'Leads', clientId: 'crm-1' });

      // Act
      const reply = await search(locator);

      // Assess
      expect(reply.status).toBe(200);
      expect(statusOf(reply)).toBe('NORECORDFOUND');
      expect(reply.json.previewResult?.error).toEqual(expect.any(String));
      expect(reply.json.previewRecordClientData).toEqual([]);
    });

    it('does not find a record of another campaign', async () => {
      // Prepare
      const other = sim.state.putRecord({ campaignName: 'Other', clientId: 'crm-1' });

      // Act
      const reply = await search({ previewRecordId: other.previewRecordID });

      // Assess
      expect(statusOf(reply)).toBe('NORECORDFOUND');
    });
  });

  describe('by criteria', () => {
    beforeEach(() => {
      const rows: readonly [string, string, string][] = [
        ['c1', 'Berlin', '9'],
        ['c2', 'Bern', '10'],
        ['c3', 'berlin', '100'],
      ];
      rows.forEach(([clientId, city, score], index) => {
        sim.state.putRecord({
          campaignName: 'Leads',
          clientId,
          createdTime: T0 + index,
          previewRecordData: [
            { key: 'City', value: city },
            { key: 'Score', value: score },
          ],
        });
      });
    });

    it.each([
      ['EQUALS', 'City', 'Berlin', ['c1']],
      ['NOTEQUALS', 'City', 'Berlin', ['c2', 'c3']],
      ['CONTAINS', 'City', 'er', ['c1', 'c2', 'c3']],
      ['CONTAINS (case-sensitive)', 'City', 'Ber', ['c1', 'c2']],
      ['BEGINSWITH', 'City', 'Berl', ['c1']],
      ['GREATERTHAN (numeric)', 'Score', '9', ['c2', 'c3']],
      ['LESSTHAN (numeric)', 'Score', '10', ['c1']],
      ['GREATERTHAN (string when not both numbers)', 'City', 'Bern', ['c3']],
      ['LESSTHAN (string when not both numbers)', 'City', 'Bern', ['c1']],
      ['GREATERTHAN (string when the criterion is not a number)', 'Score', 'A', []],
    ])('%s', async (label, key, value, expected) => {
      // Prepare
      const condition = label.split(' ')[0] ?? '';

      // Act
      const reply = await search(criteria(key, condition, value));

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(clientIds(reply)).toEqual(expected);
    });

    it('combines several criteria with AND', async () => {
      // Act
      const reply = await search({
        previewRecordData: [
          { key: 'City', value: 'Ber', condition: 'BEGINSWITH' },
          { key: 'Score', value: '9', condition: 'GREATERTHAN' },
        ],
      });

      // Assess
      expect(clientIds(reply)).toEqual(['c2']);
    });

    it('answers SUCCESS with an empty array when nothing matches', async () => {
      // Act
      const reply = await search(criteria('City', 'EQUALS', 'Paris'));

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(reply.json.previewRecordClientData).toEqual([]);
    });

    it('never matches a record that lacks the key, not even with NOTEQUALS', async () => {
      // Prepare
      sim.state.putRecord({ campaignName: 'Leads', clientId: 'no-city', createdTime: T0 + 9 });

      // Act
      const reply = await search(criteria('City', 'NOTEQUALS', 'Paris'));

      // Assess
      expect(clientIds(reply)).toEqual(['c1', 'c2', 'c3']);
    });

    it('orders by createdTime, then previewRecordID', async () => {
      // Prepare
      sim.reset();
      for (const [id, created] of [
        ['PR-B', T0 + 5],
        ['PR-C', T0],
        ['PR-A', T0 + 5],
      ] as const) {
        sim.state.putRecord({
          campaignName: 'Leads',
          clientId: id.toLowerCase(),
          previewRecordID: id,
          createdTime: created,
          previewRecordData: [{ key: 'K', value: 'v' }],
        });
      }

      // Act
      const reply = await search(criteria('K', 'EQUALS', 'v'));

      // Assess
      expect(recordsOf(reply).map((r) => r.previewRecordID)).toEqual(['PR-C', 'PR-A', 'PR-B']);
    });

    it('honours maxRecords and defaults to 1000', async () => {
      // Prepare
      sim.reset();
      for (let i = 0; i < 1005; i += 1) {
        sim.state.putRecord({
          campaignName: 'Big',
          clientId: `c${i}`,
          createdTime: T0 + i,
          previewRecordData: [{ key: 'K', value: 'v' }],
        });
      }

      // Act
      const defaulted = await search(criteria('K', 'EQUALS', 'v'), 'Big');
      const limited = await search({ ...criteria('K', 'EQUALS', 'v'), maxRecords: 3 }, 'Big');

      // Assess
      expect(recordsOf(defaulted)).toHaveLength(1000);
      expect(clientIds(limited)).toEqual(['c0', 'c1', 'c2']);
    });

    it('answers SUCCESS with no records for a campaign nothing was added to', async () => {
      // Act
      const reply = await search(criteria('K', 'EQUALS', 'v'), 'Empty');

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(reply.json.previewRecordClientData).toEqual([]);
    });

    it.each([
      ['no id and no criteria', {}],
      ['an empty criteria array', { previewRecordData: [] }],
      ['an unknown condition', criteria('City', 'LIKE', 'x')],
      ['a missing condition', { previewRecordData: [{ key: 'City', value: 'x' }] }],
      ['an unknown sys_ key', criteria('sys_colour', 'EQUALS', 'x')],
      ['maxRecords 0', { ...criteria('City', 'EQUALS', 'x'), maxRecords: 0 }],
      ['a fractional maxRecords', { ...criteria('City', 'EQUALS', 'x'), maxRecords: 1.5 }],
    ])('answers FAILED for %s', async (_label, fields) => {
      // Act
      const reply = await search(fields);

      // Assess
      expect(statusOf(reply)).toBe('FAILED');
      expect(reply.json.previewRecordClientData).toEqual([]);
    });
  });

  describe('system keys', () => {
    beforeEach(() => {
      sim.state.putRecord({
        campaignName: 'Leads',
        clientId: 'sys-1',
        createdTime: T0,
        skillQueue: 'Sales',
        timeZone: 'Europe/Berlin',
        workedState: 'WORKED',
        workAttempts: 2,
        preferredAgent: 'agent.a',
        nextEarliestWorkTime: 1_800_000_000_000,
      });
      sim.state.putRecord({
        campaignName: 'Leads',
        clientId: 'sys-2',
        createdTime: T0 + 1,
      });
    });

    it.each([
      ['sys_skill_queue', 'EQUALS', 'Sales', ['sys-1']],
      ['sys_skill_queue', 'EQUALS', 'Default', ['sys-2']],
      ['sys_worked_attempts', 'GREATERTHAN', '1', ['sys-1']],
      ['sys_worked_attempts', 'EQUALS', '0', ['sys-2']],
      ['sys_item_time_zone', 'BEGINSWITH', 'Europe/', ['sys-1']],
      ['sys_item_time_zone', 'EQUALS', 'UTC', ['sys-2']],
      ['sys_worked_state', 'EQUALS', 'NOTWORKED', ['sys-2']],
      ['sys_worked_state', 'NOTEQUALS', 'NOTWORKED', ['sys-1']],
      ['sys_preferred_agent', 'EQUALS', 'agent.a', ['sys-1']],
      ['sys_preferred_agent', 'NOTEQUALS', 'agent.z', ['sys-1']],
      ['sys_next_earliest_worktime_long', 'GREATERTHAN', '1700000000000', ['sys-1']],
      ['sys_next_earliest_worktime_long', 'LESSTHAN', '1900000000000', ['sys-1']],
    ])('%s %s %s', async (key, condition, value, expected) => {
      // Act
      const reply = await search(criteria(key, condition, value));

      // Assess
      expect(statusOf(reply)).toBe('SUCCESS');
      expect(clientIds(reply)).toEqual(expected);
    });
  });
});
