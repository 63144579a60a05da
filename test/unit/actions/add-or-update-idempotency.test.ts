/**
 * add-or-update must not repeat an add that was applied but not answered: the platform takes
 * the repeat for an update, and an update replaces all data, dropping the clientId item the
 * add stored. Before a retry after a failure that may have been applied, and on a redelivery,
 * the executor looks the record up and answers ALREADY_APPLIED when it already holds the
 * message. Against the simulator; its faults are switched per request through the transport.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { addOrUpdateCampaignRecord } from '../../../lambdas/actions/add-or-update-campaign-record';
import { type HttpTransport, postJson } from '../../../lambdas/core/http';
import type { FaultSettings } from '../../../local/simulator';
import { clientAgainstTestSimulator } from '../core/client-fixtures';
import { named } from '../support/named-rows';

const HTTP = { baseDelayMs: 0, maxDelayMs: 0, requestTimeoutMs: 2000, maxAttempts: 3 };

/** Simulator faults for the next requests, one entry per request (then none). */
let faultPlan: FaultSettings[] = [];

/** Applies the next planned fault setting before each request leaves. */
const plannedTransport: HttpTransport = (request) => {
  sim.setFaults(faultPlan.shift() ?? {});
  return postJson(request);
};

const { sim, platform } = clientAgainstTestSimulator({}, HTTP, { transport: plannedTransport });

beforeEach(() => {
  faultPlan = [];
});

const lead = {
  campaignName: 'Leads',
  clientId: 'c-1',
  preferredAgent: 'agent-7',
  nextEarliestWorkTimeUTC: 1_893_456_000_000,
  previewRecordData: [
    { key: 'Name', value: 'Grace Hopper', displayOrder: 1 },
    { key: 'Note', value: 'renewal' },
  ],
};

const storedKeys = () =>
  sim.state.findByClientId('Leads', 'c-1')?.previewRecordData.map((item) => item.key);

const requestsTo = (endpoint: string) => sim.stats.endpoint(endpoint).requests;

describe('add-or-update-campaign-record after an answer was lost', () => {
  // Each row: how the first request fails, what the executor then answers, and how many adds
  // and look-ups reached the platform. Only a failure that may have been applied is looked up.
  it.each(
    named([
      {
        name: 'does not repeat an add that was applied: the clientId item stays',
        fault: { lostResponseRate: 1 },
        outcome: { category: 'success', code: 'ALREADY_APPLIED', attempts: 1 },
        adds: 1,
        lookups: 1,
      },
      {
        name: 'retries the add when the lookup finds no record (the failed request was not applied)',
        fault: { serverErrorRate: 1 },
        outcome: { category: 'success', code: 'SUCCESS' },
        adds: 2,
        lookups: 1,
      },
      {
        name: 'looks nothing up before retrying after a throttle (nothing can have been applied)',
        fault: { throttleRate: 1 },
        outcome: { category: 'success', code: 'SUCCESS' },
        adds: 2,
        lookups: 0,
      },
    ]),
  )('%s', async (_name, { fault, outcome: expected, adds, lookups }) => {
    // Prepare
    faultPlan = [fault];

    // Act
    const outcome = await addOrUpdateCampaignRecord.execute(lead, platform, {});

    // Assess
    expect(outcome).toMatchObject(expected);
    expect(storedKeys()).toEqual(['Id', 'Name', 'Note']);
    expect(sim.state.history.map((op) => op.action)).toEqual(['addOrUpdateCampaignRecord:add']);
    expect(requestsTo('addOrUpdateCampaignRecord')).toBe(adds);
    expect(requestsTo('searchPreviewCampaign')).toBe(lookups);
  });

  it('on a redelivery sends nothing when the record already holds the message', async () => {
    // Prepare: the first delivery added the record, its answer never arrived.
    await addOrUpdateCampaignRecord.execute(lead, platform, {});

    // Act
    const outcome = await addOrUpdateCampaignRecord.execute(lead, platform, {
      redelivered: true,
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_APPLIED' });
    expect(outcome.message).toBe('record "c-1" in "Leads" already holds this data; not sent again');
    expect(storedKeys()).toEqual(['Id', 'Name', 'Note']);
    expect(requestsTo('addOrUpdateCampaignRecord')).toBe(1);
  });

  it.each([
    ['other data', { previewRecordData: [{ key: 'Name', value: 'Grace B. Hopper' }] }],
    ['another preferred agent', { preferredAgent: 'agent-8' }],
    ['another next work time', { nextEarliestWorkTimeUTC: 1_893_456_060_000 }],
  ])('on a redelivery still updates a record that holds %s', async (_case, change) => {
    // Prepare
    await addOrUpdateCampaignRecord.execute(lead, platform, {});

    // Act
    const outcome = await addOrUpdateCampaignRecord.execute({ ...lead, ...change }, platform, {
      redelivered: true,
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.history.map((op) => op.action)).toEqual([
      'addOrUpdateCampaignRecord:add',
      'addOrUpdateCampaignRecord:update',
    ]);
  });

  it('on a redelivery adds a record that is not there', async () => {
    // Act
    const outcome = await addOrUpdateCampaignRecord.execute(lead, platform, {
      redelivered: true,
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(storedKeys()).toEqual(['Id', 'Name', 'Note']);
  });

  it('falls back to sending, without further lookups, when a lookup gets no answer', async () => {
    // Prepare: the add is lost, every attempt of the lookup gets a 503, the retried add too.
    faultPlan = [
      { lostResponseRate: 1 },
      { serverErrorRate: 1 },
      { serverErrorRate: 1 },
      { serverErrorRate: 1 },
      { serverErrorRate: 1 },
    ];

    // Act
    const outcome = await addOrUpdateCampaignRecord.execute(lead, platform, {});

    // Assess: the platform takes the last retry for an update, as before this check existed.
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.history.map((op) => op.action)).toEqual([
      'addOrUpdateCampaignRecord:add',
      'addOrUpdateCampaignRecord:update',
    ]);
    expect(requestsTo('searchPreviewCampaign')).toBe(3);
    expect(requestsTo('addOrUpdateCampaignRecord')).toBe(3);
  });

  it('keeps the call in doubt when no lookup answered and the retried add is answered FAILED', async () => {
    // Prepare: the add is applied but its answer lost, every lookup gets a 503, and both
    // retried adds are answered FAILED: the add that landed is still on the platform.
    faultPlan = [
      { lostResponseRate: 1 },
      { serverErrorRate: 1 },
      { serverErrorRate: 1 },
      { serverErrorRate: 1 },
      { failedStatusRate: 1 },
      { failedStatusRate: 1 },
    ];

    // Act
    const outcome = await addOrUpdateCampaignRecord.execute(lead, platform, {});

    // Assess: a plain FAILED would tell the ledger nothing landed
    expect(outcome).toMatchObject({ category: 'retryable', code: 'FAILED', afterDoubt: true });
    expect(storedKeys()).toEqual(['Id', 'Name', 'Note']);
    expect(requestsTo('addOrUpdateCampaignRecord')).toBe(3);
  });

  it('looks again before each retry while lookups answer', async () => {
    // Prepare: the connection drops before the add is applied; the lookup finds nothing; the
    // retried add is applied but its answer lost; the second lookup finds it.
    faultPlan = [{ connectionResetRate: 1 }, {}, { lostResponseRate: 1 }, {}];

    // Act
    const outcome = await addOrUpdateCampaignRecord.execute(lead, platform, {});

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_APPLIED' });
    expect(storedKeys()).toEqual(['Id', 'Name', 'Note']);
    expect(requestsTo('searchPreviewCampaign')).toBe(2);
    expect(requestsTo('addOrUpdateCampaignRecord')).toBe(2);
  });
});
