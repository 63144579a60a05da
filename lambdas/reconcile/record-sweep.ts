/**
 * What a campaign holds, read with criteria searches (there is no list call). The four worked
 * states partition every record (the spec lists exactly four), so the sweep starts there; a
 * slice that comes back full (`maxRecords`) is split by one bound on a split key into LESSTHAN,
 * EQUALS and GREATERTHAN, again and again, until no slice is full. One bound at a time keeps the
 * split a partition whatever comparison the platform uses (the spec does not show it), as long
 * as it answers exactly one of the three for a value.
 *
 * The sweep is *shown complete* only when every slice returned fewer than `maxRecords`, the
 * platform combines criteria with AND (probed before the first split), and, when a split key
 * was used, no record of the campaign is known to lack that key: such a record matches none of
 * the three (the spec does not show how an absent key compares), so others like it may hide.
 * Deletes are planned only from a complete sweep (docs/decisions.md, "Reconciliation").
 */
import type { SearchCampaignRecordsMessage } from '../actions';
import { MAX_SEARCH_CRITERIA, MAX_SEARCH_RECORDS } from '../actions/search-campaign-records';
import type { CampaignRecord } from '../core/platform-responses';
import type { PlatformRegion } from '../core/regions';
import type { PlatformReader } from './platform-reader';

export const WORKED_STATES = ['NOTWORKED', 'WORKED', 'COMPLETED', 'REMOVED'] as const;

type Criterion = NonNullable<SearchCampaignRecordsMessage['previewRecordData']>[number];

export interface CampaignSweep {
  readonly campaignName: string;
  /** Every record found, once each (by previewRecordID). */
  readonly records: readonly CampaignRecord[];
  readonly complete: boolean;
  /** Why it is not shown complete. */
  readonly incompleteBecause?: string;
  /** Split keys the sweep needed: records without them are invisible in split slices. */
  readonly splitOn: readonly string[];
  readonly searches: number;
}

export interface SweepOptions {
  readonly reader: PlatformReader;
  readonly region: PlatformRegion;
  readonly splitKeys: readonly string[];
  /** Searches in flight at once (the caller's pacing still applies). @default 4 */
  readonly concurrency?: number;
  /** @default MAX_SEARCH_RECORDS (1000) */
  readonly maxRecords?: number;
}

const criterion = (key: string, condition: Criterion['condition'], value: string): Criterion => ({
  key,
  condition,
  value,
});

const itemValue = (record: CampaignRecord, key: string): string | undefined =>
  record.previewRecordData.find((item) => item.key === key)?.value;

/** The bound that halves the sample: its median value of `key` in string order. */
const medianOf = (records: readonly CampaignRecord[], key: string): string | undefined => {
  const values = records.map((r) => itemValue(r, key)).filter((v): v is string => v !== undefined);
  if (values.length === 0) return undefined;
  values.sort();
  return values[Math.floor(values.length / 2)];
};

export const sweepCampaign = async (
  campaignName: string,
  options: SweepOptions,
): Promise<CampaignSweep> => {
  const { reader, region } = options;
  const maxRecords = options.maxRecords ?? MAX_SEARCH_RECORDS;
  const found = new Map<string, CampaignRecord>();
  const splitOn = new Set<string>();
  const problems: string[] = [];
  let searches = 0;
  let andProbe: Promise<boolean> | undefined;

  const search = async (criteria: readonly Criterion[]) => {
    searches += 1;
    return reader.search({ campaignName, region, maxRecords, previewRecordData: [...criteria] });
  };
  /** Two criteria no record can meet both of: any answer means they are not ANDed. */
  const combinesWithAnd = async (): Promise<boolean> =>
    (
      await search([
        criterion('sys_worked_state', 'EQUALS', 'NOTWORKED'),
        criterion('sys_worked_state', 'EQUALS', 'WORKED'),
      ])
    ).length === 0;

  const slices: Criterion[][] = WORKED_STATES.map((state) => [
    criterion('sys_worked_state', 'EQUALS', state),
  ]);
  const splitSlice = async (criteria: Criterion[], sample: readonly CampaignRecord[]) => {
    andProbe ??= combinesWithAnd();
    if (!(await andProbe)) {
      problems.push(
        'the platform does not combine search criteria with AND, so a full slice cannot be split',
      );
      return;
    }
    if (criteria.length + 1 > MAX_SEARCH_CRITERIA) {
      problems.push(`a slice is still full after ${criteria.length} criteria`);
      return;
    }
    for (const key of options.splitKeys) {
      // A slice already pinned to one value of this key cannot be split on it again.
      if (criteria.some((c) => c.key === key && c.condition === 'EQUALS')) continue;
      const bound = medianOf(sample, key);
      if (bound === undefined) continue;
      splitOn.add(key);
      slices.push(
        [...criteria, criterion(key, 'LESSTHAN', bound)],
        [...criteria, criterion(key, 'EQUALS', bound)],
        [...criteria, criterion(key, 'GREATERTHAN', bound)],
      );
      return;
    }
    problems.push(
      `a slice is still full and none of the split keys (${options.splitKeys.join(', ')}) can split it further`,
    );
  };

  const worker = async (): Promise<void> => {
    for (let slice = slices.shift(); slice !== undefined; slice = slices.shift()) {
      const records = await search(slice);
      for (const record of records) found.set(record.previewRecordID, record);
      if (records.length >= maxRecords) await splitSlice(slice, records);
    }
  };
  // Workers take slices until none is left; a split adds slices while others still run.
  const concurrency = options.concurrency ?? 4;
  let running: Promise<void>[] = [];
  do {
    running = Array.from({ length: Math.min(concurrency, Math.max(1, slices.length)) }, worker);
    await Promise.all(running);
  } while (slices.length > 0);

  const records = [...found.values()];
  for (const key of splitOn) {
    const without = records.filter((r) => itemValue(r, key) === undefined).length;
    if (without > 0) {
      problems.push(
        `${without} record(s) lack the split key "${key}", so others like them may be invisible in split slices`,
      );
    }
  }
  return {
    campaignName,
    records,
    complete: problems.length === 0,
    ...(problems.length === 0 ? {} : { incompleteBecause: problems.join('; ') }),
    splitOn: [...splitOn],
    searches,
  };
};

/**
 * Rows the sweep did not see, looked up one by one (search by clientId): after a split, a
 * record without the split key is only found this way. A record found without a split key
 * makes the sweep incomplete.
 */
export const lookUpUnseen = async (
  sweep: CampaignSweep,
  clientIds: readonly string[],
  options: Pick<SweepOptions, 'reader' | 'region' | 'concurrency'>,
): Promise<CampaignSweep> => {
  if (sweep.splitOn.length === 0 || clientIds.length === 0) return sweep;
  const seen = new Set(sweep.records.map((r) => r.clientId));
  const queue = clientIds.filter((id) => !seen.has(id));
  const found: CampaignRecord[] = [];
  let searches = 0;
  const worker = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      searches += 1;
      found.push(
        ...(await options.reader.search({
          campaignName: sweep.campaignName,
          region: options.region,
          clientId: id,
        })),
      );
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  const lacking = found.filter((r) => sweep.splitOn.some((key) => itemValue(r, key) === undefined));
  const because =
    lacking.length === 0
      ? sweep.incompleteBecause
      : [
          sweep.incompleteBecause,
          `${lacking.length} record(s) found by clientId lack a split key (${sweep.splitOn.join(', ')}), so others like them may be invisible in split slices`,
        ]
          .filter((t) => t !== undefined)
          .join('; ');
  return {
    ...sweep,
    records: [
      ...sweep.records,
      ...found.filter((r) => !sweep.records.some((s) => s.previewRecordID === r.previewRecordID)),
    ],
    complete: sweep.complete && lacking.length === 0,
    ...(because === undefined ? {} : { incompleteBecause: because }),
    searches: sweep.searches + searches,
  };
};
