import { describe, expect, it } from 'vitest';
import { addOrUpdateCampaignRecord } from '../../../lambdas/actions/add-or-update-campaign-record';
import { changeCampaignRecordStatus } from '../../../lambdas/actions/change-campaign-record-status';
import { deleteCampaignRecord } from '../../../lambdas/actions/delete-campaign-record';
import { searchCampaignRecords } from '../../../lambdas/actions/search-campaign-records';
import { transferCampaignRecord } from '../../../lambdas/actions/transfer-campaign-record';
import { PlatformCaller } from '../../../lambdas/core/platform-caller';
import { InMemoryApiKeySource } from '../../../testkit';
import {
  clientAgainstCaptureServer,
  expectOnlyRequest,
  onlyRequest,
  realtimeBody,
  realtimeEnvelope,
  settingsFor,
  TEST_KEY,
} from '../core/client-fixtures';

const PREFIX = '/platform-previewcontact-service/svc/rs/PreviewContactServiceExternal';

const { server, client } = clientAgainstCaptureServer(PlatformCaller, {
  status: 200,
  body: realtimeEnvelope('SUCCESS'),
});

describe('realtime request shape', () => {
  it('addOrUpdateCampaignRecord sends the spec body and the five X-sc headers', async () => {
    // Prepare
    const message = {
      correlationId: 'corr-1',
      campaignName: 'Leads',
      region: 'us-west-2' as const,
      previewRecordId: 'pr-9',
      clientId: 'c-1',
      clientIdFieldName: 'CrmId',
      preferredAgent: 'agent.smith',
      nextEarliestWorkTimeUTC: 1_767_225_600_000,
      previewRecordData: [
        { key: 'Name', value: 'Ada', displayOrder: 1 },
        { key: 'Phone', value: '+14155550100' },
      ],
    };

    // Act
    const outcome = await client.send(addOrUpdateCampaignRecord, message);

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS', attempts: 1 });
    const request = expectOnlyRequest(
      server,
      `${PREFIX}/addOrUpdateCampaignRecord`,
      realtimeBody({
        region: 'us-west-2',
        previewRecordId: 'pr-9',
        clientId: 'c-1',
        clientIdFieldName: 'CrmId',
        preferredAgent: 'agent.smith',
        nextEarliestWorkTimeUTC: 1_767_225_600_000,
        previewRecordData: [
          { key: 'Name', value: 'Ada', displayOrder: 1 },
          { key: 'Phone', value: '+14155550100' },
        ],
      }),
    );
    expect(request.method).toBe('POST');
  });

  it('addOrUpdateCampaignRecord defaults region and sends no optional or undefined keys', async () => {
    // Prepare
    const message = {
      campaignName: 'Leads',
      clientId: 'c-1',
      preferredAgent: undefined,
      previewRecordData: [{ key: 'Name', value: 'Ada', displayOrder: undefined }],
    };

    // Act
    await client.send(addOrUpdateCampaignRecord, message);

    // Assess
    expect(onlyRequest(server).bodyText).toBe(
      '{"platform":"PLAT","companyCode":"acme","environment":"prod","campaignName":"Leads","region":"eu-central-1","clientId":"c-1","previewRecordData":[{"key":"Name","value":"Ada"}]}',
    );
  });

  it('searchPreviewCampaign sends id lookups and criteria as the spec shapes them', async () => {
    // Prepare
    server.respond(() => ({
      status: 200,
      body: { ...realtimeEnvelope('SUCCESS'), previewRecordClientData: [] },
    }));
    const message = {
      correlationId: 'corr-2',
      campaignName: 'Leads',
      maxRecords: 25,
      previewRecordData: [
        { key: 'sys_worked_state', value: 'NOTWORKED', condition: 'EQUALS' as const },
        { key: 'City', value: 'Ber', condition: 'BEGINSWITH' as const },
      ],
    };

    // Act
    const outcome = await client.send(searchCampaignRecords, message);

    // Assess
    expect(outcome).toMatchObject({ category: 'success', body: { previewRecordClientData: [] } });
    expectOnlyRequest(
      server,
      `${PREFIX}/searchPreviewCampaign`,
      realtimeBody({
        maxRecords: 25,
        previewRecordData: [
          { key: 'sys_worked_state', value: 'NOTWORKED', condition: 'EQUALS' },
          { key: 'City', value: 'Ber', condition: 'BEGINSWITH' },
        ],
      }),
    );
  });

  it('searchPreviewCampaign by clientId sends no criteria', async () => {
    // Prepare
    server.respond(() => ({
      status: 200,
      body: { ...realtimeEnvelope('SUCCESS'), previewRecordClientData: [] },
    }));

    // Act
    await client.send(searchCampaignRecords, { campaignName: 'Leads', clientId: 'c-1' });

    // Assess
    expect(onlyRequest(server).body).toStrictEqual(realtimeBody({ clientId: 'c-1' }));
  });

  it('changeCampaignRecordStatus sends the state change and its options', async () => {
    // Prepare
    const message = {
      correlationId: 'corr-3',
      campaignName: 'Leads',
      previewRecordId: 'pr-9',
      previewRecordStateEnum: 'WORKED' as const,
      skillQueue: 'Sales',
      preferredAgent: '',
      nextEarliestWorkTimeUTC: 1_767_225_600_000,
      timeZone: 'Europe/Berlin',
    };

    // Act
    await client.send(changeCampaignRecordStatus, message);

    // Assess
    expectOnlyRequest(
      server,
      `${PREFIX}/changeCampaignRecordStatus`,
      realtimeBody({
        previewRecordId: 'pr-9',
        previewRecordStateEnum: 'WORKED',
        skillQueue: 'Sales',
        preferredAgent: '',
        nextEarliestWorkTimeUTC: 1_767_225_600_000,
        timeZone: 'Europe/Berlin',
      }),
    );
  });

  it('transferCampaignRecord sends the destination and its options', async () => {
    // Prepare
    const message = {
      campaignName: 'Leads',
      region: 'af-south-1' as const,
      clientId: 'c-1',
      transferToCampaign: 'Renewals',
      skillQueue: 'Retention',
      timeZone: 'Africa/Johannesburg',
    };

    // Act
    await client.send(transferCampaignRecord, message);

    // Assess
    expectOnlyRequest(
      server,
      `${PREFIX}/transferCampaignRecord`,
      realtimeBody({
        region: 'af-south-1',
        clientId: 'c-1',
        transferToCampaign: 'Renewals',
        skillQueue: 'Retention',
        timeZone: 'Africa/Johannesburg',
      }),
    );
  });

  it('deleteRecordFromCampaign sends only the locator', async () => {
    // Prepare
    const message = { correlationId: 'corr-5', campaignName: 'Leads', previewRecordId: 'pr-9' };

    // Act
    await client.send(deleteCampaignRecord, message);

    // Assess
    expectOnlyRequest(
      server,
      `${PREFIX}/deleteRecordFromCampaign`,
      realtimeBody({ previewRecordId: 'pr-9' }),
    );
  });

  it('joins a base URL with a trailing slash without a double slash', async () => {
    // Prepare
    const slashed = new PlatformCaller(
      settingsFor(`${server.baseUrl}/`),
      new InMemoryApiKeySource(TEST_KEY),
    );

    // Act
    await slashed.send(deleteCampaignRecord, { campaignName: 'Leads', clientId: 'c-1' });

    // Assess
    expect(onlyRequest(server).path).toBe(`${PREFIX}/deleteRecordFromCampaign`);
  });
});

describe('realtime outcomes', () => {
  it('reads HTTP 200 with NORECORDFOUND as a permanent failure naming the endpoint', async () => {
    // Prepare
    server.respond(() => ({
      status: 200,
      body: realtimeEnvelope('NORECORDFOUND', 'no record for clientId'),
    }));

    // Act
    const outcome = await client.send(deleteCampaignRecord, {
      campaignName: 'Leads',
      clientId: 'x',
    });

    // Assess
    expect(outcome).toMatchObject({
      category: 'permanent',
      code: 'NORECORDFOUND',
      httpStatus: 200,
      attempts: 1,
      message:
        'deleteRecordFromCampaign: previewResultStatus NORECORDFOUND: no record for clientId',
    });
  });

  it('treats a search SUCCESS without records as malformed', async () => {
    // Prepare
    server.respond(() => ({ status: 200, body: realtimeEnvelope('SUCCESS') }));
    const fast = new PlatformCaller(
      settingsFor(server.baseUrl),
      new InMemoryApiKeySource(TEST_KEY),
      { maxAttempts: 1 },
    );

    // Act
    const outcome = await fast.send(searchCampaignRecords, {
      campaignName: 'Leads',
      clientId: 'c-1',
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'MALFORMED_RESPONSE' });
  });
});
