import { describe, expect, it } from 'vitest';
import type { AddOrUpdateCampaignRecordMessage } from '../../../lambdas/actions';
import { addOrUpdateCampaignRecord } from '../../../lambdas/actions/add-or-update-campaign-record';
import { changeCampaignRecordStatus } from '../../../lambdas/actions/change-campaign-record-status';
import { deleteCampaignRecord } from '../../../lambdas/actions/delete-campaign-record';
import { searchCampaignRecords } from '../../../lambdas/actions/search-campaign-records';
import { transferCampaignRecord } from '../../../lambdas/actions/transfer-campaign-record';
import type { AnyAction } from '../../../lambdas/core/pipeline/action';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import { realtimeEnvelope, settingsFor, TEST_KEY } from '../core/client-fixtures';
import { clientAgainstSimulator, withOwnSimulator } from './contract-fixtures';

/**
 * The realtime client against the real simulator over loopback: every action and every
 * status it can answer, as the client classifies them.
 */

const { sim, keys, client, sleeps } = clientAgainstSimulator(PlatformCaller);

const ONE_ATTEMPT = { maxAttempts: 1 };

const PLATFORM_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/;

/** Sends `fields` for the Leads campaign, through the file's client unless another is given. */
const inLeads = (action: AnyAction, fields: Record<string, unknown>, caller = client) =>
  caller.send(action, { campaignName: 'Leads', ...fields });

const addLead = (clientId: string, extra: Partial<AddOrUpdateCampaignRecordMessage> = {}) =>
  inLeads(addOrUpdateCampaignRecord, {
    clientId,
    previewRecordData: [
      { key: 'Name', value: 'Ada Lovelace', displayOrder: 1 },
      { key: 'City', value: 'London', displayOrder: 2 },
    ],
    ...extra,
  });

describe('addOrUpdateCampaignRecord', () => {
  it('SUCCESS: adds a record in the default campaign region', async () => {
    // Prepare
    const message = { clientIdFieldName: 'CrmId' };

    // Act
    const outcome = await addLead('c-1', message);

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS', attempts: 1 });
    expect(outcome.body).toMatchObject(realtimeEnvelope('SUCCESS'));
    const stored = sim.state.findByClientId('Leads', 'c-1');
    const keysStored = stored?.previewRecordData.map((d) => d.key).sort();
    expect(keysStored).toEqual(['City', 'CrmId', 'Name']);
    expect(stored?.previewRecordData.find((d) => d.key === 'CrmId')?.value).toBe('c-1');
  });

  it('SUCCESS: an update replaces all data', async () => {
    // Prepare
    await addLead('c-1');

    // Act
    const outcome = await inLeads(addOrUpdateCampaignRecord, {
      clientId: 'c-1',
      previewRecordData: [{ key: 'City', value: 'Paris' }],
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    const stored = sim.state.findByClientId('Leads', 'c-1');
    expect(stored?.previewRecordData.map((d) => [d.key, d.value])).toEqual([['City', 'Paris']]);
  });

  it('INVALIDCLIENTID: permanent when clientId is missing', async () => {
    // Prepare: the schema would stop this; the client passes what it is given.
    const message = { previewRecordData: [{ key: 'Name', value: 'x' }] };

    // Act
    const outcome = await inLeads(addOrUpdateCampaignRecord, message);

    // Assess
    expect(outcome).toMatchObject({
      category: 'permanent',
      code: 'INVALIDCLIENTID',
      httpStatus: 200,
      attempts: 1,
    });
    expect(outcome.message).toMatch(
      /^addOrUpdateCampaignRecord: previewResultStatus INVALIDCLIENTID: .+/,
    );
  });

  it('INVALIDRECORDDATAKEY: permanent when a data key equals clientIdFieldName', async () => {
    // Prepare
    const message = { clientId: 'c-1', previewRecordData: [{ key: 'Id', value: 'c-1' }] };

    // Act
    const outcome = await inLeads(addOrUpdateCampaignRecord, message);

    // Assess
    expect(outcome).toMatchObject({
      category: 'permanent',
      code: 'INVALIDRECORDDATAKEY',
      attempts: 1,
    });
    expect(sim.state.listRecords('Leads')).toHaveLength(0);
  });

  it('FAILED: retryable, with the platform reason, retried up to maxAttempts', async () => {
    // Prepare
    const message = {
      clientId: 'c-1',
      previewRecordData: [{ key: 'Name', value: 'x', displayOrder: 0 }],
    };

    // Act
    const outcome = await inLeads(addOrUpdateCampaignRecord, message);

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'FAILED', attempts: 2 });
    expect(outcome.message).toContain('displayOrder must be greater than zero');
    expect(sleeps).toHaveLength(1);
  });
});

describe('searchPreviewCampaign', () => {
  it('SUCCESS by clientId: one record with the spec fields and formats', async () => {
    // Prepare
    await addLead('c-1');

    // Act
    const outcome = await inLeads(searchCampaignRecords, { clientId: 'c-1' });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    const records = searchCampaignRecords.records(outcome);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record).toMatchObject({
      previewRecordID: expect.any(String),
      clientId: 'c-1',
      workedState: 'NOTWORKED',
      workAttempts: 0,
      createdTime: expect.stringMatching(PLATFORM_TIME),
      lastUpdatedTime: expect.stringMatching(PLATFORM_TIME),
    });
    expect(record?.previewRecordData).toContainEqual({
      key: 'Name',
      value: 'Ada Lovelace',
      displayOrder: 1,
    });
  });

  it('SUCCESS by previewRecordId and by criteria', async () => {
    // Prepare
    await addLead('c-1');
    await addLead('c-2', {
      previewRecordData: [{ key: 'City', value: 'Berlin' }],
    });
    const id = sim.state.findByClientId('Leads', 'c-2')?.previewRecordID ?? 'missing';

    // Act
    const byId = await inLeads(searchCampaignRecords, { previewRecordId: id });
    const byCriteria = await inLeads(searchCampaignRecords, {
      maxRecords: 10,
      previewRecordData: [
        { key: 'City', value: 'Ber', condition: 'BEGINSWITH' },
        { key: 'sys_worked_state', value: 'NOTWORKED', condition: 'EQUALS' },
      ],
    });

    // Assess
    expect(searchCampaignRecords.records(byId).map((r) => r.clientId)).toEqual(['c-2']);
    expect(byCriteria).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(searchCampaignRecords.records(byCriteria).map((r) => r.clientId)).toEqual(['c-2']);
  });

  it('SUCCESS with no match for criteria: an empty array', async () => {
    // Prepare
    await addLead('c-1');

    // Act
    const outcome = await inLeads(searchCampaignRecords, {
      previewRecordData: [{ key: 'City', value: 'Nowhere', condition: 'EQUALS' }],
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', body: { previewRecordClientData: [] } });
  });
});

describe('changeCampaignRecordStatus', () => {
  it('SUCCESS: applies state, queue, agent, time and zone', async () => {
    // Prepare
    await addLead('c-1');
    const when = Date.parse('2030-01-02T03:04:05.678Z');

    // Act
    const outcome = await inLeads(changeCampaignRecordStatus, {
      clientId: 'c-1',
      previewRecordStateEnum: 'WORKED',
      nextEarliestWorkTimeUTC: when,
      skillQueue: 'Sales',
      preferredAgent: 'agent-7',
      timeZone: 'Europe/Berlin',
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findByClientId('Leads', 'c-1')).toMatchObject({
      workedState: 'WORKED',
      nextEarliestWorkTime: '2030-01-02 03:04:05.678',
      skillQueue: 'Sales',
      preferredAgent: 'agent-7',
      timeZone: 'Europe/Berlin',
    });
  });
});

describe('transferCampaignRecord', () => {
  it('SUCCESS: the record moves to the destination campaign', async () => {
    // Prepare
    await addLead('c-1');

    // Act
    const outcome = await inLeads(transferCampaignRecord, {
      clientId: 'c-1',
      transferToCampaign: 'Renewals',
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findByClientId('Leads', 'c-1')).toBeUndefined();
    expect(sim.state.findByClientId('Renewals', 'c-1')).toBeDefined();
  });
});

// The same rejection scenarios for each action that reads a record: only the message differs.
describe('NORECORDFOUND per action', () => {
  it.each([
    {
      when: 'searchPreviewCampaign: for an unknown id, beside a stored record',
      action: searchCampaignRecords,
      withLead: true,
      message: { clientId: 'nope' },
    },
    {
      when: 'changeCampaignRecordStatus: for an unknown record',
      action: changeCampaignRecordStatus,
      withLead: false,
      message: { clientId: 'ghost', previewRecordStateEnum: 'COMPLETED' },
    },
    {
      when: 'transferCampaignRecord: when the record is not in the source campaign',
      action: transferCampaignRecord,
      withLead: false,
      message: { clientId: 'ghost', transferToCampaign: 'Renewals' },
    },
  ])('permanent $when', async ({ action, withLead, message }) => {
    // Prepare
    if (withLead) await addLead('c-1');

    // Act
    const outcome = await inLeads(action, message);

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'NORECORDFOUND', attempts: 1 });
  });
});

describe('FAILED per action', () => {
  it.each([
    {
      when: 'searchPreviewCampaign: for a criterion key that is not a known system key',
      action: searchCampaignRecords,
      withLead: false,
      message: { previewRecordData: [{ key: 'sys_bogus', value: '1', condition: 'EQUALS' }] },
      reason: 'sys_bogus',
    },
    {
      when: 'changeCampaignRecordStatus: when WORKED comes without nextEarliestWorkTimeUTC',
      action: changeCampaignRecordStatus,
      withLead: true,
      message: { clientId: 'c-1', previewRecordStateEnum: 'WORKED' },
      reason: 'nextEarliestWorkTimeUTC',
    },
    {
      when: 'transferCampaignRecord: when transferring into the same campaign',
      action: transferCampaignRecord,
      withLead: true,
      message: { clientId: 'c-1', transferToCampaign: 'Leads' },
      reason: 'already in',
    },
  ])('retryable $when', async ({ action, withLead, message, reason }) => {
    // Prepare
    if (withLead) await addLead('c-1');

    // Act
    const outcome = await inLeads(action, message);

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'FAILED' });
    expect(outcome.message).toContain(reason);
  });
});

describe('deleteRecordFromCampaign', () => {
  it('SUCCESS, then NORECORDFOUND for the same record', async () => {
    // Prepare
    await addLead('c-1');

    // Act
    const first = await inLeads(deleteCampaignRecord, { clientId: 'c-1' });
    const second = await inLeads(deleteCampaignRecord, { clientId: 'c-1' });

    // Assess
    expect(first).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(second).toMatchObject({ category: 'permanent', code: 'NORECORDFOUND' });
    expect(sim.state.listRecords('Leads')).toHaveLength(0);
  });

  it('FAILED: retryable for a campaign that does not exist on a restricted platform', async () => {
    // Prepare
    const restrictedPlatform = { campaigns: ['Leads'] };

    // Act
    const outcome = await withOwnSimulator(
      PlatformCaller,
      restrictedPlatform,
      ONE_ATTEMPT,
      (other) => other.send(deleteCampaignRecord, { campaignName: 'Nope', clientId: 'c-1' }),
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'FAILED', attempts: 1 });
    expect(outcome.message).toContain('campaign not found');
  });
});

describe('simulated faults', () => {
  const everyAction = () => [
    addLead('c-1'),
    inLeads(searchCampaignRecords, { clientId: 'c-1' }),
    inLeads(changeCampaignRecordStatus, { clientId: 'c-1', previewRecordStateEnum: 'COMPLETED' }),
    inLeads(transferCampaignRecord, { clientId: 'c-1', transferToCampaign: 'B' }),
    inLeads(deleteCampaignRecord, { clientId: 'c-1' }),
  ];

  it.each([
    [{ failedStatusRate: 1 }, 'FAILED'],
    [{ malformedBodyRate: 1 }, 'MALFORMED_RESPONSE'],
    [{ connectionResetRate: 1 }, 'NETWORK_ERROR'],
    [{ throttleRate: 1 }, 'HTTP_429'],
  ])('%j on every action is retryable %s', async (faults, code) => {
    // Prepare
    sim.setFaults(faults);

    // Act
    const outcomes = await Promise.all(everyAction());

    // Assess
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ category: 'retryable', code, attempts: 2 });
    }
    expect(sim.state.listRecords('Leads')).toHaveLength(0);
  });

  it('5xx is retryable with its HTTP status', async () => {
    // Prepare
    sim.setFaults({ serverErrorRate: 1 });

    // Act
    const outcome = await addLead('c-1');

    // Assess
    expect(outcome.category).toBe('retryable');
    expect(outcome.code).toMatch(/^HTTP_50[023]$/);
  });

  it('honours the simulator Retry-After on 429', async () => {
    // Prepare
    sim.setFaults({ throttleRate: 1, retryAfterSeconds: 1 });

    // Act
    const outcome = await addLead('c-1');

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'HTTP_429', attempts: 2 });
    expect(sleeps).toEqual([1000]);
  });

  it('times out on a hanging request', async () => {
    // Prepare
    sim.setFaults({ hangRate: 1 });
    const impatient = new PlatformCaller(settingsFor(sim.baseUrl), keys, {
      maxAttempts: 1,
      requestTimeoutMs: 50,
    });

    // Act
    const outcome = await inLeads(deleteCampaignRecord, { clientId: 'x' }, impatient);

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'TIMEOUT', attempts: 1 });
  });
});

describe('401 → refresh → retry', () => {
  it('a rotated key is refreshed exactly once and the call succeeds', async () => {
    // Prepare: the platform rotated; the key source still serves the old key from cache.
    sim.setApiKey('rotated-key-02');
    keys.storedKey = 'rotated-key-02';

    // Act
    const outcome = await addLead('c-1');

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS', attempts: 2 });
    expect(keys.refreshCalls).toEqual([TEST_KEY]);
    expect(sleeps).toEqual([]);
    expect(sim.state.findByClientId('Leads', 'c-1')?.appliedCount).toBe(1);
  });

  it('a key that is still wrong after the refresh is retryable HTTP_401', async () => {
    // Prepare
    sim.setApiKey('rotated-key-02');
    keys.storedKey = 'not-yet-rotated';

    // Act
    const outcome = await addLead('c-1');

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'HTTP_401', attempts: 2 });
    expect(outcome.message).toContain('invalid header X-sc-company-api-key');
    expect(keys.refreshCalls).toHaveLength(1);
  });
});
