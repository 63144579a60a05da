import { describe, expect, it } from 'vitest';
import { PLATFORM_REGIONS } from '../../../lambdas/core/platform/regions';
import { realtimeEnvelope } from '../core/client-fixtures';
import {
  addRecord,
  common,
  statusOf,
  T0,
  TENANT,
  useClockedTestSimulator,
  withTestSimulator,
} from './simulator-support';

describe('simulator: addOrUpdateCampaignRecord', () => {
  const { sim, clock } = useClockedTestSimulator();

  /** Adds a Leads record whose clientId goes under the custom field CustomerNo, with one data item. */
  const addUnderCustomerNo = (clientId: string, item: { key: string; value: string }) =>
    addRecord(sim, 'Leads', {
      clientId,
      clientIdFieldName: 'CustomerNo',
      previewRecordData: [item],
    });

  it('adds a record in state NOTWORKED with the clientId stored under Id and the envelope echoed', async () => {
    // Prepare
    const body = {
      ...common('Leads'),
      clientId: 'crm-1',
      previewRecordData: [
        { key: 'Name', value: 'Ann Example' },
        { key: 'Phone', value: '+14155550100', displayOrder: 7 },
      ],
    };

    // Act
    const reply = await addRecord(sim, 'Leads', body);

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual(
      realtimeEnvelope('SUCCESS', null, {
        platform: TENANT.platformCode,
        environment: TENANT.environmentName,
      }),
    );
    const stored = sim.state.findByClientId('Leads', 'crm-1');
    expect(stored).toMatchObject({
      clientId: 'crm-1',
      campaignName: 'Leads',
      workedState: 'NOTWORKED',
      workAttempts: 0,
      preferredAgent: null,
      lastAttemptAgent: null,
      lastAttemptTime: null,
      nextEarliestWorkTime: null,
      skillQueue: 'Default',
      timeZone: 'UTC',
      createdTime: '2023-11-14 22:13:20.000',
      lastUpdatedTime: '2023-11-14 22:13:20.000',
      appliedCount: 1,
      previewRecordData: [
        { key: 'Id', value: 'crm-1', displayOrder: 1 },
        { key: 'Name', value: 'Ann Example', displayOrder: 2 },
        { key: 'Phone', value: '+14155550100', displayOrder: 7 },
      ],
    });
    expect(stored?.previewRecordID).toMatch(/^PR\d{10}$/);
    expect(stored?.workCodes).toBeUndefined();
  });

  it('stores the clientId under a custom clientIdFieldName', async () => {
    // Act
    const reply = await addUnderCustomerNo('crm-2', { key: 'Name', value: 'Bo' });

    // Assess
    expect(statusOf(reply)).toBe('SUCCESS');
    expect(sim.state.findByClientId('Leads', 'crm-2')?.previewRecordData[0]).toEqual({
      key: 'CustomerNo',
      value: 'crm-2',
      displayOrder: 1,
    });
  });

  it('replaces ALL data on update by clientId and keeps id, createdTime and state', async () => {
    // Prepare
    await addRecord(sim, 'Leads', {
      clientId: 'crm-3',
      previewRecordData: [
        { key: 'Name', value: 'Cy' },
        { key: 'Notes', value: 'old' },
      ],
    });
    const before = sim.state.findByClientId('Leads', 'crm-3');
    clock.advance(5_000);

    // Act
    const reply = await addRecord(sim, 'Leads', {
      clientId: 'crm-3',
      previewRecordData: [{ key: 'City', value: 'Berlin' }],
    });

    // Assess
    expect(statusOf(reply)).toBe('SUCCESS');
    const after = sim.state.findByClientId('Leads', 'crm-3');
    expect(after?.previewRecordID).toBe(before?.previewRecordID);
    expect(after?.previewRecordData).toEqual([{ key: 'City', value: 'Berlin', displayOrder: 1 }]);
    expect(after?.createdTime).toBe('2023-11-14 22:13:20.000');
    expect(after?.lastUpdatedTime).toBe('2023-11-14 22:13:25.000');
    expect(after?.appliedCount).toBe(2);
    expect(sim.state.listRecords('Leads')).toHaveLength(1);
  });

  it('locates by previewRecordId over clientId and leaves the stored clientId unchanged', async () => {
    // Prepare
    const first = sim.state.putRecord({ campaignName: 'Leads', clientId: 'a' });
    sim.state.putRecord({ campaignName: 'Leads', clientId: 'b' });

    // Act
    const reply = await addRecord(sim, 'Leads', {
      previewRecordId: first.previewRecordID,
      clientId: 'b',
      previewRecordData: [{ key: 'Name', value: 'Di' }],
    });

    // Assess
    expect(statusOf(reply)).toBe('SUCCESS');
    expect(sim.state.findByPreviewRecordId('Leads', first.previewRecordID)).toMatchObject({
      clientId: 'a',
      previewRecordData: [{ key: 'Name', value: 'Di', displayOrder: 1 }],
    });
    expect(sim.state.findByClientId('Leads', 'b')?.previewRecordData).toEqual([]);
  });

  it('adds with a generated id when previewRecordId matches nothing', async () => {
    // Act
    const reply = await addRecord(sim, 'Leads', {
      previewRecordId: 'NOPE',
      clientId: 'crm-4',
      previewRecordData: [],
    });

    // Assess
    expect(statusOf(reply)).toBe('SUCCESS');
    const stored = sim.state.findByClientId('Leads', 'crm-4');
    expect(stored?.previewRecordID).not.toBe('NOPE');
    expect(sim.state.findByPreviewRecordId('Leads', 'NOPE')).toBeUndefined();
  });

  it('adds when previewRecordId matches nothing even if the clientId exists, as the spec says', async () => {
    // Prepare
    const first = sim.state.putRecord({ campaignName: 'Leads', clientId: 'crm-5' });

    // Act
    const reply = await addRecord(sim, 'Leads', {
      previewRecordId: 'NOPE',
      clientId: 'crm-5',
      previewRecordData: [{ key: 'Name', value: 'Second' }],
    });

    // Assess: two records with the clientId; the clientId still locates the older one
    expect(statusOf(reply)).toBe('SUCCESS');
    const records = sim.state.listRecords('Leads');
    expect(records.map((r) => r.clientId)).toEqual(['crm-5', 'crm-5']);
    expect(records.map((r) => r.previewRecordID)).not.toContain('NOPE');
    expect(sim.state.findByClientId('Leads', 'crm-5')?.previewRecordID).toBe(first.previewRecordID);
  });

  it.each([
    ['missing', {}],
    ['empty', { clientId: '' }],
    ['not a string', { clientId: 42 }],
  ])('answers INVALIDCLIENTID when clientId is %s', async (_label, fields) => {
    // Act
    const reply = await addRecord(sim, 'Leads', { ...fields, previewRecordData: [] });

    // Assess
    expect(reply.status).toBe(200);
    expect(statusOf(reply)).toBe('INVALIDCLIENTID');
    expect(reply.json.previewResult?.error).toEqual(expect.any(String));
    expect(sim.state.listRecords('Leads')).toEqual([]);
  });

  it.each([
    ['the default Id', undefined, 'Id'],
    ['a custom clientIdFieldName', 'CustomerNo', 'CustomerNo'],
  ])('answers INVALIDRECORDDATAKEY when a data key equals %s', async (_label, fieldName, key) => {
    // Act
    const reply = await addRecord(sim, 'Leads', {
      clientId: 'crm-6',
      ...(fieldName ? { clientIdFieldName: fieldName } : {}),
      previewRecordData: [{ key, value: 'x' }],
    });

    // Assess
    expect(statusOf(reply)).toBe('INVALIDRECORDDATAKEY');
    expect(sim.state.listRecords('Leads')).toEqual([]);
  });

  it('accepts a key "Id" when another clientIdFieldName is in effect', async () => {
    // Act
    const reply = await addUnderCustomerNo('crm-7', { key: 'Id', value: 'x' });

    // Assess
    expect(statusOf(reply)).toBe('SUCCESS');
  });

  it.each([
    ['displayOrder 0', [{ key: 'A', value: 'x', displayOrder: 0 }]],
    ['negative displayOrder', [{ key: 'A', value: 'x', displayOrder: -1 }]],
    ['fractional displayOrder', [{ key: 'A', value: 'x', displayOrder: 1.5 }]],
    ['a phone key without E.164', [{ key: 'MobilePHONE', value: '0171 555' }]],
    ['a _link key without URL', [{ key: 'Crm_link', value: 'not a url' }]],
    ['a _button key without URL', [{ key: 'Open_button', value: 'javascript:alert(1)' }]],
    ['an ItemTimeZone that is no IANA name', [{ key: 'ItemTimeZone', value: '+01:00' }]],
    [
      'duplicate keys',
      [
        { key: 'A', value: 'x' },
        { key: 'A', value: 'y' },
      ],
    ],
    ['an item without key', [{ value: 'x' }]],
    ['an item without value', [{ key: 'A' }]],
    ['no previewRecordData', undefined],
  ])('answers FAILED for %s and stores nothing', async (_label, previewRecordData) => {
    // Act
    const reply = await addRecord(sim, 'Leads', { clientId: 'crm-8', previewRecordData });

    // Assess
    expect(statusOf(reply)).toBe('FAILED');
    expect(reply.json.previewResult?.error).toEqual(expect.any(String));
    expect(sim.state.listRecords('Leads')).toEqual([]);
  });

  it.each([
    ['platform', { platform: 'OTHER' }],
    ['companyCode', { companyCode: 'other' }],
    ['environment', { environment: 'prod' }],
    ['region (unlisted)', { region: 'eu-west-1' }],
    ['campaignName (missing)', { campaignName: undefined }],
  ])('answers FAILED for a wrong %s and echoes it', async (_label, override) => {
    // Act
    const reply = await addRecord(sim, 'Leads', {
      clientId: 'crm-9',
      previewRecordData: [],
      ...override,
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(statusOf(reply)).toBe('FAILED');
    const [field, value] = Object.entries(override)[0] ?? [];
    expect(reply.json[field as keyof typeof reply.json]).toBe(value ?? null);
    expect(sim.state.listRecords('Leads')).toEqual([]);
  });

  it.each(PLATFORM_REGIONS)('accepts the listed region %s', async (region) => {
    // Act
    const reply = await addRecord(sim, 'Leads', {
      ...common('Leads', region),
      clientId: `crm-${region}`,
      previewRecordData: [],
    });

    // Assess
    expect(statusOf(reply)).toBe('SUCCESS');
    expect(reply.json.region).toBe(region);
  });

  it('stores nextEarliestWorkTimeUTC, preferredAgent, SkillQueue and ItemTimeZone', async () => {
    // Act
    const reply = await addRecord(sim, 'Leads', {
      clientId: 'crm-10',
      preferredAgent: 'agent.smith',
      nextEarliestWorkTimeUTC: T0 + 60_000,
      previewRecordData: [
        { key: 'SkillQueue', value: 'Sales' },
        { key: 'ItemTimeZone', value: 'Europe/Berlin' },
      ],
    });

    // Assess
    expect(statusOf(reply)).toBe('SUCCESS');
    expect(sim.state.findByClientId('Leads', 'crm-10')).toMatchObject({
      preferredAgent: 'agent.smith',
      nextEarliestWorkTime: '2023-11-14 22:14:20.000',
      nextEarliestWorkTimeMillis: T0 + 60_000,
      skillQueue: 'Sales',
      timeZone: 'Europe/Berlin',
    });
  });

  it('leaves omitted optional fields unchanged on update and clears preferredAgent with ""', async () => {
    // Prepare
    await addRecord(sim, 'Leads', {
      clientId: 'crm-11',
      preferredAgent: 'agent.smith',
      nextEarliestWorkTimeUTC: T0,
      previewRecordData: [{ key: 'SkillQueue', value: 'Sales' }],
    });

    // Act
    const omitted = await addRecord(sim, 'Leads', { clientId: 'crm-11', previewRecordData: [] });
    const afterOmitted = sim.state.findByClientId('Leads', 'crm-11');
    const cleared = await addRecord(sim, 'Leads', {
      clientId: 'crm-11',
      preferredAgent: '',
      previewRecordData: [],
    });

    // Assess
    expect(statusOf(omitted)).toBe('SUCCESS');
    expect(afterOmitted).toMatchObject({
      preferredAgent: 'agent.smith',
      nextEarliestWorkTimeMillis: T0,
      skillQueue: 'Sales',
    });
    expect(statusOf(cleared)).toBe('SUCCESS');
    expect(sim.state.findByClientId('Leads', 'crm-11')?.preferredAgent).toBeNull();
  });

  it.each([
    ['negative', -1],
    ['fractional', 1.5],
    ['a string', '1700000000000'],
  ])('answers FAILED for a %s nextEarliestWorkTimeUTC', async (_label, value) => {
    // Act
    const reply = await addRecord(sim, 'Leads', {
      clientId: 'crm-12',
      nextEarliestWorkTimeUTC: value,
      previewRecordData: [],
    });

    // Assess
    expect(statusOf(reply)).toBe('FAILED');
  });

  it('keeps ids unique across campaigns', async () => {
    // Act
    await addRecord(sim, 'A', { clientId: 'same', previewRecordData: [] });
    await addRecord(sim, 'B', { clientId: 'same', previewRecordData: [] });

    // Assess
    const a = sim.state.findByClientId('A', 'same');
    const b = sim.state.findByClientId('B', 'same');
    expect(a?.previewRecordID).not.toBe(b?.previewRecordID);
  });
});

describe('simulator: fixed campaign list', () => {
  it('answers FAILED for a campaign not in the list and accepts a listed one', async () => {
    // Prepare
    await withTestSimulator({ campaigns: ['Known'] }, async (sim) => {
      // Act
      const unknown = await addRecord(sim, 'Unknown', { clientId: 'c', previewRecordData: [] });
      const known = await addRecord(sim, 'Known', { clientId: 'c', previewRecordData: [] });

      // Assess
      expect(statusOf(unknown)).toBe('FAILED');
      expect(unknown.json.previewResult?.error).toBe('campaign not found');
      expect(statusOf(known)).toBe('SUCCESS');
      expect(sim.state.listCampaigns()).toEqual(['Known']);
    });
  });
});
