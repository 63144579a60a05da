/**
 * The records sweep against the simulator over its socket: a campaign of more than
 * `maxRecords` is split until no slice is full and is shown complete; a record without the
 * split key makes it incomplete (such records are invisible in split slices), and is still found
 * by a clientId lookup; a small campaign needs no split.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED_STATES, type WorkedState } from '../../../lambdas/core/platform/platform-responses';
import { lookUpUnseen, sweepCampaign } from '../../../lambdas/reconcile/record-sweep';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { localPlatformReader } from '../../../testkit';
import { TEST_TENANT } from '../../support/test-tenant';

const API_KEY = 'sweep-test-key-00001';
let simulator: RunningSimulator;

const reader = () =>
  localPlatformReader({ ...TEST_TENANT, baseUrl: simulator.baseUrl, apiKey: API_KEY });

/** Records in every worked state: most NOTWORKED (a full slice to split), some of each other. */
const stateOf = (n: number): WorkedState =>
  n % 7 === 0 ? 'COMPLETED' : n % 11 === 0 ? 'WORKED' : n % 13 === 0 ? 'REMOVED' : 'NOTWORKED';

const seed = (
  campaignName: string,
  count: number,
  withKey: (n: number) => boolean = () => true,
) => {
  for (let n = 0; n < count; n += 1) {
    const id = `K-${String(n).padStart(5, '0')}`;
    simulator.state.putRecord({
      campaignName,
      clientId: id,
      previewRecordData: [
        ...(withKey(n) ? [{ key: 'CrmId', value: id }] : []),
        { key: 'Name', value: `n${n}` },
      ],
      workedState: stateOf(n),
    });
  }
};

beforeAll(async () => {
  simulator = await startSimulator({ ...TEST_TENANT, apiKey: API_KEY });
});
afterAll(async () => {
  await simulator?.close();
});

describe('records sweep', () => {
  it.each([
    ['a small campaign', 'Small', 40, false],
    ['a campaign of 2500 records (more than maxRecords in one state)', 'Big', 2500, true],
  ])(
    'reads every record of %s once and shows the sweep complete',
    async (_name, campaign, count, split) => {
      // Prepare
      seed(campaign, count);

      // Act
      const sweep = await sweepCampaign(campaign, {
        reader: reader(),
        region: 'eu-central-1',
        splitKeys: ['CrmId'],
      });

      // Assess
      expect(sweep.records).toHaveLength(count);
      expect(new Set(sweep.records.map((r) => r.clientId)).size).toBe(count);
      // Each record found in the state it was seeded in, whatever the state.
      const seeded = Array.from({ length: count }, (_, n) => stateOf(n));
      for (const state of WORKED_STATES) {
        const found = sweep.records.filter((r) => r.workedState === state);
        expect(found, state).toHaveLength(seeded.filter((s) => s === state).length);
      }
      expect(sweep.complete).toBe(true);
      expect(sweep.splitOn).toEqual(split ? ['CrmId'] : []);
    },
  );

  it('is not shown complete when a split slice may hide records without the split key; a clientId lookup finds them', async () => {
    // Prepare: 1500 records, three of them without CrmId
    seed('Gaps', 1500, (n) => n % 500 !== 3);

    // Act
    const sweep = await sweepCampaign('Gaps', {
      reader: reader(),
      region: 'eu-central-1',
      splitKeys: ['CrmId'],
    });
    const looked = await lookUpUnseen(sweep, ['K-00003', 'K-00503', 'K-01003'], {
      reader: reader(),
      region: 'eu-central-1',
    });

    // Assess
    expect(sweep.complete).toBe(false);
    expect(looked.complete).toBe(false);
    expect(sweep.incompleteBecause).toMatch(
      /lack the split key "CrmId", so others like them may be invisible/,
    );
    expect(looked.records).toHaveLength(1500);
  });

  it('is not shown complete when no split key can split a full slice', async () => {
    // Prepare
    seed('NoKey', 1600);

    // Act
    const sweep = await sweepCampaign('NoKey', {
      reader: reader(),
      region: 'eu-central-1',
      splitKeys: ['Absent'],
    });

    // Assess
    expect(sweep.complete).toBe(false);
    expect(sweep.incompleteBecause).toMatch(
      /none of the split keys \(Absent\) can split it further/,
    );
  });
});
