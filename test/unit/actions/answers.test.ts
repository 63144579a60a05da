/**
 * Each action's own request against the platform simulator over loopback: the answers of the
 * reads, and the direct request a write makes. A write has one path, its entity's ledger, whose
 * steps decide what its answer means for the entity (lambdas/entities and their tests); the
 * deletes of what is gone go through it here (a ledger in memory). One simulator for the file;
 * reset between tests.
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
import { EntityLedger, newEvent } from '../../../lambdas/core/ledger/entity-ledger';
import { versionOf } from '../../../lambdas/core/ledger/event-version';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import type { WriteAction } from '../../../lambdas/core/pipeline/action';
import { ENTITY_KINDS } from '../../../lambdas/entities';
import { seedRecord, seedUser } from '../../integration/handlers/support/seed-data';
import { clientAgainstTestSimulator } from '../core/client-fixtures';

/** Only these campaigns exist: naming another is answered FAILED (retryable). */
const CAMPAIGNS = ['Leads', 'Callbacks'];
/** No real waiting between retries. */
const FAST = { baseDelayMs: 0, maxDelayMs: 0 };

const { sim, platform } = clientAgainstTestSimulator({ campaigns: CAMPAIGNS }, FAST);

/** A write as the pipeline sends it, on its one path: its entity's ledger, here in memory. */
const throughLedger = async <M>(action: WriteAction<string, M>, message: M) => {
  const { ordering } = action;
  const name = ordering.name(message, platform.campaignRegion);
  if (!('id' in name)) throw new Error('the test names the entity by its ids');
  const op = ordering.op(message);
  return new EntityLedger({ store: new InMemoryLedgerStore() }).apply(
    ENTITY_KINDS[ordering.entity],
    {
      id: name.id,
      event: newEvent(action.name, versionOf(ordering.rank, op, Date.now()), op),
      platform,
      call: {},
      deadline: Date.now() + 30_000,
    },
  );
};

describe('delete-campaign-record', () => {
  it('deletes a record that is there', async () => {
    // Prepare
    seedRecord({ sim }, 'c-1');

    // Act
    const outcome = await platform.send(
      deleteCampaignRecord,
      { campaignName: 'Leads', clientId: 'c-1' },
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findByClientId('Leads', 'c-1')).toBeUndefined();
  });

  it('reports a record already gone as ALREADY_ABSENT success', async () => {
    // Act
    const outcome = await throughLedger(deleteCampaignRecord, {
      campaignName: 'Leads',
      clientId: 'c-gone',
    });

    // Assess: one delete request, answered NORECORDFOUND
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_ABSENT' });
    expect(outcome.message).toContain('"Leads"');
    expect(sim.stats.endpoint('deleteRecordFromCampaign').requests).toBe(1);
  });

  it('keeps a FAILED answer retryable', async () => {
    // Act
    const outcome = await platform.send(
      deleteCampaignRecord,
      { campaignName: 'Closed', clientId: 'c-1' },
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
    const outcome = await platform.send(
      transferCampaignRecord,
      { campaignName: 'Leads', clientId: 'c-1', transferToCampaign: 'Callbacks' },
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findByClientId('Callbacks', 'c-1')?.previewRecordID).toBe(
      seeded.previewRecordID,
    );
  });

  it('answers NORECORDFOUND when the record is not in the source campaign', async () => {
    // Act
    const outcome = await platform.send(
      transferCampaignRecord,
      { campaignName: 'Leads', clientId: 'c-nowhere', transferToCampaign: 'Callbacks' },
      {},
    );

    // Assess
    expect(outcome).toMatchObject({ code: 'NORECORDFOUND' });
    expect(sim.stats.endpoint('searchPreviewCampaign').requests).toBe(0);
  });
});

describe('change-campaign-record-status', () => {
  it('keeps NORECORDFOUND permanent: a wrong id is no idempotent case', async () => {
    // Act
    const outcome = await platform.send(
      changeCampaignRecordStatus,
      { campaignName: 'Leads', clientId: 'c-missing', previewRecordStateEnum: 'COMPLETED' },
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
    await platform.send(changeCampaignRecordStatus, message, {});

    // Act
    const outcome = await platform.send(changeCampaignRecordStatus, message, {});

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
    const outcome = await platform.send(addUser, message, {});

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findUser('grace@example.com')).toBeDefined();
  });

  it('answers ALREADY_EXISTS for a user already there, without deciding whose it is', async () => {
    // Prepare
    seedUser({ sim }, 'grace@example.com', false);

    // Act
    const outcome = await platform.send(addUser, message, {});

    // Assess: whose user it is, only the ledger knows (it looks before its first add)
    expect(outcome).toMatchObject({ code: 'ALREADY_EXISTS' });
    expect(outcome.category).not.toBe('success');
    expect(sim.stats.endpoint('query-existence').requests).toBe(0);
  });
});

describe('delete-user', () => {
  it('deletes a user that is there', async () => {
    // Prepare
    seedUser({ sim }, 'grace@example.com', false);

    // Act
    const outcome = await platform.send(deleteUser, { loginUserId: 'grace@example.com' }, {});

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findUser('grace@example.com')).toBeUndefined();
  });

  it('reports a user already gone as ALREADY_ABSENT success', async () => {
    // Act
    const outcome = await throughLedger(deleteUser, {
      correlationId: 'c-1',
      occurredAt: '2026-11-28T10:00:00Z',
      loginUserId: 'grace@example.com',
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_ABSENT' });
    expect(sim.stats.endpoint('delete-user').requests).toBe(1);
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
