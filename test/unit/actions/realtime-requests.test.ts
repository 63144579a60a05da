import { describe, expect, it } from 'vitest';
import { addOrUpdateCampaignRecord } from '../../../lambdas/actions/add-or-update-campaign-record';
import { changeCampaignRecordStatus } from '../../../lambdas/actions/change-campaign-record-status';
import { deleteCampaignRecord } from '../../../lambdas/actions/delete-campaign-record';
import { searchCampaignRecords } from '../../../lambdas/actions/search-campaign-records';
import { transferCampaignRecord } from '../../../lambdas/actions/transfer-campaign-record';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import {
  clientAgainstCaptureServer,
  clientAt,
  expectOnlyRequest,
  onlyRequest,
  realtimeBody,
  realtimeEnvelope,
} from '../core/client-fixtures';
import { named } from '../support/named-rows';

const PREFIX = '/platform-previewcontact-service/svc/rs/PreviewContactServiceExternal';

const { server, client } = clientAgainstCaptureServer(PlatformCaller, {
  status: 200,
  body: realtimeEnvelope('SUCCESS'),
});

/** A SUCCESS answer any realtime action reads, a search included. */
const SUCCESS_REPLY = { ...realtimeEnvelope('SUCCESS'), previewRecordClientData: [] };

describe('realtime request shape', () => {
  it('addOrUpdateCampaignRecord sends the spec body and the five X-sc headers', async () => {
    // Prepare: every property the body carries, as the message gives it.
    const sent = {
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
    const message = { correlationId: 'corr-1', campaignName: 'Leads', ...sent };

    // Act
    const outcome = await client.send(addOrUpdateCampaignRecord, message);

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS', attempts: 1 });
    const request = expectOnlyRequest(
      server,
      `${PREFIX}/addOrUpdateCampaignRecord`,
      realtimeBody(sent),
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
      '{"platform":"TESTPLATFORM","companyCode":"acme","environment":"qa","campaignName":"Leads","region":"eu-central-1","clientId":"c-1","previewRecordData":[{"key":"Name","value":"Ada"}]}',
    );
  });

  // Each row: the properties of the message the body must carry as given (besides the
  // tenant and the default region), to the action's endpoint; correlationId is never sent.
  it.each(
    named([
      {
        name: 'searchPreviewCampaign sends id lookups and criteria as the spec shapes them',
        action: searchCampaignRecords,
        endpoint: 'searchPreviewCampaign',
        sent: {
          maxRecords: 25,
          previewRecordData: [
            { key: 'sys_worked_state', value: 'NOTWORKED', condition: 'EQUALS' },
            { key: 'City', value: 'Ber', condition: 'BEGINSWITH' },
          ],
        },
      },
      {
        name: 'searchPreviewCampaign by clientId sends no criteria',
        action: searchCampaignRecords,
        endpoint: 'searchPreviewCampaign',
        sent: { clientId: 'c-1' },
      },
      {
        name: 'changeCampaignRecordStatus sends the state change and its options',
        action: changeCampaignRecordStatus,
        endpoint: 'changeCampaignRecordStatus',
        sent: {
          previewRecordId: 'pr-9',
          previewRecordStateEnum: 'WORKED',
          skillQueue: 'Sales',
          preferredAgent: '',
          nextEarliestWorkTimeUTC: 1_767_225_600_000,
          timeZone: 'Europe/Berlin',
        },
      },
      {
        name: 'transferCampaignRecord sends the destination and its options',
        action: transferCampaignRecord,
        endpoint: 'transferCampaignRecord',
        sent: {
          region: 'af-south-1',
          clientId: 'c-1',
          transferToCampaign: 'Renewals',
          skillQueue: 'Retention',
          timeZone: 'Africa/Johannesburg',
        },
      },
      {
        name: 'deleteRecordFromCampaign sends only the locator',
        action: deleteCampaignRecord,
        endpoint: 'deleteRecordFromCampaign',
        sent: { previewRecordId: 'pr-9' },
      },
    ]),
  )('%s', async (_name, { action, endpoint, sent }) => {
    // Prepare
    server.respond(() => ({ status: 200, body: SUCCESS_REPLY }));
    const message = { correlationId: 'corr-2', campaignName: 'Leads', ...sent };

    // Act
    const outcome = await client.send(action, message);

    // Assess
    expect(outcome).toMatchObject({ category: 'success', body: SUCCESS_REPLY });
    expectOnlyRequest(server, `${PREFIX}/${endpoint}`, realtimeBody(sent));
  });

  it('joins a base URL with a trailing slash without a double slash', async () => {
    // Prepare
    const slashed = clientAt(`${server.baseUrl}/`);

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
    const fast = clientAt(server.baseUrl, { maxAttempts: 1 });

    // Act
    const outcome = await fast.send(searchCampaignRecords, {
      campaignName: 'Leads',
      clientId: 'c-1',
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'MALFORMED_RESPONSE' });
  });
});
