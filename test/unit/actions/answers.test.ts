/**
 * Each action's execute step against the platform simulator over loopback: the idempotency
 * branches (a redelivery that finds the desired end state in place succeeds with an ALREADY_*
 * code) and the reads' answers. One simulator for the file; reset between tests.
 */
import { describe, expect, it } from 'vitest';
import type { SearchResult } from '../../../lambdas/actions';
import { addUser } from '../../../lambdas/actions/add-user';
import { changeCampaignRecordStatus } from '../../../lambdas/actions/change-campaign-record-status';
import { deleteCampaignRecord } from '../../../lambdas/actions/delete-campaign-record';
import { deleteUser } from '../../../lambdas/actions/delete-user';
import { queryUserExistence } from '../../../lambdas/actions/query-user-existence';
import { searchCampaignRecords } from '../../../lambdas/actions/search-campaign-records';
import { transferCampaignRecord } from '../../../lambdas/actions/transfer-campaign-record';
import { seedRecord, seedUser } from '../../integration/handlers/support/seed-data';
import { startCaptureServer } from '../../support/capture-server';
import { clientAgainstTestSimulator, clientAt } from '../core/client-fixtures';

/** Only these campaigns exist: naming another is answered FAILED (retryable). */
const CAMPAIGNS = ['Leads', 'Callbacks'];
/** No real waiting between retries. */
const FAST = { baseDelayMs: 0, maxDelayMs: 0 };

const { sim, platform } = clientAgainstTestSimulator({ campaigns: CAMPAIGNS }, FAST);

describe('delete-campaign-record', () => {
  it('deletes a record that is there', async () => {
    // Prepare
    seedRecord({ sim }, 'c-1');

    // Act
    const outcome = await deleteCampaignRecord.execute(
      { campaignName: 'Leads', clientId: 'c-1' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findByClientId('Leads', 'c-1')).toBeUndefined();
  });

  it('reports a record already gone as ALREADY_DELETED success', async () => {
    // Act
    const outcome = await deleteCampaignRecord.execute(
      { campaignName: 'Leads', clientId: 'c-gone' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_DELETED', attempts: 1 });
    expect(outcome.message).toContain('"Leads"');
  });

  it('keeps a FAILED answer retryable', async () => {
    // Act
    const outcome = await deleteCampaignRecord.execute(
      { campaignName: 'Closed', clientId: 'c-1' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'FAILED', attempts: 3 });
  });
});

describe('transfer-campaign-record', () => {
  it('moves a record that is in the source campaign', async () => {
    // Prepare
    const seeded = seedRecord({ sim }, 'c-1');

    // Act
    const outcome = await transferCampaignRecord.execute(
      { campaignName: 'Leads', clientId: 'c-1', transferToCampaign: 'Callbacks' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findByClientId('Callbacks', 'c-1')?.previewRecordID).toBe(
      seeded.previewRecordID,
    );
  });

  it.each([
    [
      'clientId',
      (_id: string): { clientId?: string; previewRecordId?: string } => ({ clientId: 'c-1' }),
    ],
    [
      'previewRecordId',
      (id: string): { clientId?: string; previewRecordId?: string } => ({ previewRecordId: id }),
    ],
  ])(
    'reports a record already in the destination (by %s) as ALREADY_TRANSFERRED',
    async (_by, locate) => {
      // Prepare
      const seeded = seedRecord({ sim }, 'c-1', 'Callbacks');
      const locator = locate(seeded.previewRecordID);

      // Act
      const outcome = await transferCampaignRecord.execute(
        { campaignName: 'Leads', transferToCampaign: 'Callbacks', ...locator },
        platform,
        {},
      );

      // Assess
      expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_TRANSFERRED' });
      expect(outcome.message).toBe('record is no longer in "Leads" and already in "Callbacks"');
      expect(sim.stats.endpoint('searchPreviewCampaign').requests).toBe(1);
    },
  );

  it('keeps NORECORDFOUND permanent when the record is in neither campaign', async () => {
    // Act
    const outcome = await transferCampaignRecord.execute(
      { campaignName: 'Leads', clientId: 'c-nowhere', transferToCampaign: 'Callbacks' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'NORECORDFOUND' });
    expect(outcome.message).toBe('no record with that id in "Leads" nor in "Callbacks"');
  });

  it('stays retryable when the destination cannot be searched', async () => {
    // Prepare: the source exists but not the record; the destination campaign does not exist.
    seedRecord({ sim }, 'other');

    // Act
    const outcome = await transferCampaignRecord.execute(
      { campaignName: 'Leads', clientId: 'c-1', transferToCampaign: 'Closed' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'FAILED' });
  });
});

describe('change-campaign-record-status', () => {
  it('keeps NORECORDFOUND permanent: a wrong id is no idempotent case', async () => {
    // Act
    const outcome = await changeCampaignRecordStatus.execute(
      { campaignName: 'Leads', clientId: 'c-missing', previewRecordStateEnum: 'COMPLETED' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'NORECORDFOUND' });
  });

  it('succeeds again when the record already has the state (naturally idempotent)', async () => {
    // Prepare
    seedRecord({ sim }, 'c-1');
    const message = {
      campaignName: 'Leads',
      clientId: 'c-1',
      previewRecordStateEnum: 'COMPLETED',
    } as const;
    await changeCampaignRecordStatus.execute(message, platform, {});

    // Act
    const outcome = await changeCampaignRecordStatus.execute(message, platform, {});

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findByClientId('Leads', 'c-1')?.workedState).toBe('COMPLETED');
  });
});

describe('add-user', () => {
  const message = {
    loginUserId: 'grace@example.com',
    firstName: 'Grace',
    lastName: 'Hopper',
    userTemplateName: 'Agent',
  };

  it('adds a new user', async () => {
    // Act
    const outcome = await addUser.execute(message, platform, {});

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findUser('grace@example.com')).toBeDefined();
  });

  it('reports a user already there as ALREADY_EXISTS success after confirming it', async () => {
    // Prepare
    seedUser({ sim }, 'grace@example.com', false);

    // Act
    const outcome = await addUser.execute(message, platform, {});

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_EXISTS' });
    expect(sim.stats.endpoint('query-existence').requests).toBe(1);
  });

  it('reports ALREADY_EXISTS success when the user is also in the backing instance as asked', async () => {
    // Prepare
    seedUser({ sim }, 'grace@example.com', true);

    // Act
    const outcome = await addUser.execute({ ...message, createInCloudConnect: true }, platform, {});

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_EXISTS' });
  });

  it('is permanent when the existing user is missing from the backing instance it asks for', async () => {
    // Prepare
    seedUser({ sim }, 'grace@example.com', false);

    // Act
    const outcome = await addUser.execute({ ...message, createInCloudConnect: true }, platform, {});

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'ALREADY_EXISTS' });
    expect(outcome.message).toContain('not in the backing contact-center instance');
  });

  it('is retryable when the platform says ALREADY_EXISTS but cannot find the user', async () => {
    // Prepare: an inconsistent platform (e.g. a replica lagging behind).
    const platform = await startCaptureServer((request) =>
      request.path.endsWith('/add-user')
        ? { body: { result: 'ALREADY_EXISTS', message: 'exists' } }
        : {
            body: {
              result: 'NOT_FOUND',
              message: 'user not found',
              cloudConnectStatus: null,
              connectUserId: null,
            },
          },
    );
    const lagging = clientAt(platform.baseUrl, FAST);

    try {
      // Act
      const outcome = await addUser.execute(message, lagging, {});

      // Assess
      expect(outcome).toMatchObject({ category: 'retryable', code: 'ALREADY_EXISTS' });
      expect(outcome.message).toContain('query-existence does not find the user');
    } finally {
      await platform.close();
    }
  });
});

describe('delete-user', () => {
  it('deletes a user that is there', async () => {
    // Prepare
    seedUser({ sim }, 'grace@example.com', false);

    // Act
    const outcome = await deleteUser.execute({ loginUserId: 'grace@example.com' }, platform, {});

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findUser('grace@example.com')).toBeUndefined();
  });

  it('reports a user already gone as ALREADY_DELETED success', async () => {
    // Act
    const outcome = await deleteUser.execute({ loginUserId: 'grace@example.com' }, platform, {});

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_DELETED' });
  });
});

describe('query-user-existence', () => {
  it.each([
    [
      'in the platform and the backing instance',
      true,
      { status: 'SUCCESS', exists: true, cloudConnectStatus: 'EXISTS' },
    ],
    [
      'in the platform only',
      false,
      { status: 'SUCCESS', exists: true, cloudConnectStatus: 'NOT_FOUND', connectUserId: null },
    ],
  ])('answers a user %s', async (_case, inCloudConnect, expected) => {
    // Prepare
    const seeded = seedUser({ sim }, 'grace@example.com', inCloudConnect);

    // Act
    const { result, ...outcome } = await queryUserExistence.execute(
      { loginUserId: 'grace@example.com' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(result).toMatchObject(expected);
    if (inCloudConnect) expect(result).toMatchObject({ connectUserId: seeded.connectUserId });
  });

  it('answers NOT_FOUND for a user that does not exist, as a success', async () => {
    // Act
    const { result, ...outcome } = await queryUserExistence.execute(
      { loginUserId: 'nobody@example.com' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'NOT_FOUND' });
    expect(result).toEqual({
      status: 'NOT_FOUND',
      exists: false,
      cloudConnectStatus: null,
      connectUserId: null,
    });
  });
});

describe('search-campaign-records', () => {
  it('answers an id lookup that matches nothing with NORECORDFOUND, as a success', async () => {
    // Act
    const { result, ...outcome } = await searchCampaignRecords.execute(
      { campaignName: 'Leads', clientId: 'c-none' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'NORECORDFOUND' });
    expect(result).toEqual({ status: 'NORECORDFOUND', records: [] });
  });

  it('returns the matching records of a criteria search', async () => {
    // Prepare
    seedRecord({ sim }, 'c-1');
    seedRecord({ sim }, 'c-2');

    // Act
    const { result, ...outcome } = await searchCampaignRecords.execute(
      {
        campaignName: 'Leads',
        previewRecordData: [{ key: 'sys_worked_state', value: 'NOTWORKED', condition: 'EQUALS' }],
      },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(result).toMatchObject({ status: 'SUCCESS' });
    const records = (result as SearchResult | undefined)?.records ?? [];
    expect(records.map((r) => r.clientId)).toEqual(['c-1', 'c-2']);
  });

  it('gives no result for a failure', async () => {
    // Act
    const outcome = await searchCampaignRecords.execute(
      { campaignName: 'Closed', clientId: 'c-1' },
      platform,
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'FAILED' });
    expect(outcome.result).toBeUndefined();
  });
});
