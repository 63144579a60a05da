/**
 * What a campaign holds, read with criteria searches (there is no list call). The four worked
 * states partition every record (the spec lists exactly four), so the sweep starts there; a
 * slice that comes back full (`maxRecords`) is split on a split key at the median of what it
 * returned: below (LESSTHAN), at (EQUALS) and above (GREATERTHAN) the bound. A slice is a state,
 * the values pinned by EQUALS, and at most one open interval of the key being split, so a search
 * never carries more than a handful of criteria however deep the split goes.
 *
 * The spec shows neither how criteria combine nor how GREATERTHAN / LESSTHAN compare. The sweep
 * assumes AND and the simulator's order (numeric when both sides are plain decimal numbers,
 * else string order) and checks both: AND with a probe before the first split, the order on
 * every record a slice returns (it must lie in the slice) and no record from two slices.
 *
 * The sweep is *shown complete* only when every slice returned fewer than `maxRecords`, those
 * checks held, and, when a split key was used, no record of the campaign is known to lack that
 * key: such a record matches none of the three (the spec does not show how an absent key
 * compares), so others like it may hide. Deletes are planned only from a complete sweep
 * (docs/decisions.md, "Reconciliation").
 */
import type { SearchCampaignRecordsMessage } from '../actions';
import { MAX_SEARCH_CRITERIA, MAX_SEARCH_RECORDS } from '../actions/search-campaign-records';
import { mapLimit } from '../core/entry/concurrency';
import { type CampaignRecord, WORKED_STATES } from '../core/platform/platform-responses';
import type { PlatformRegion } from '../core/platform/regions';
import type { PlatformReader } from './platform-reader';

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

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** The order the sweep assumes GREATERTHAN / LESSTHAN use, and checks the platform keeps. */
export const compareKeys = (a: string, b: string): number => {
  if (DECIMAL.test(a) && DECIMAL.test(b)) return Math.sign(Number(a) - Number(b));
  return a < b ? -1 : a > b ? 1 : 0;
};

/** A state, the values pinned by EQUALS, and an open interval of the key being split. */
interface Slice {
  readonly pinned: readonly Criterion[];
  readonly key?: string;
  readonly above?: string;
  readonly below?: string;
}

const criteriaOf = (slice: Slice): Criterion[] => [
  ...slice.pinned,
  ...(slice.key !== undefined && slice.above !== undefined
    ? [criterion(slice.key, 'GREATERTHAN', slice.above)]
    : []),
  ...(slice.key !== undefined && slice.below !== undefined
    ? [criterion(slice.key, 'LESSTHAN', slice.below)]
    : []),
];

/** The record's key lies in the slice's interval (by the order the sweep assumes). */
const inSlice = (slice: Slice, record: CampaignRecord): boolean => {
  if (slice.key === undefined) return true;
  const value = itemValue(record, slice.key);
  if (value === undefined) return false;
  return (
    (slice.above === undefined || compareKeys(value, slice.above) > 0) &&
    (slice.below === undefined || compareKeys(value, slice.below) < 0)
  );
};

/** The bound that halves the sample: the median of its values of `key`. */
const medianOf = (records: readonly CampaignRecord[], key: string): string | undefined => {
  const values = records.map((r) => itemValue(r, key)).filter((v): v is string => v !== undefined);
  if (values.length === 0) return undefined;
  values.sort(compareKeys);
  return values[Math.floor(values.length / 2)];
};

export const sweepCampaign = async (
  campaignName: string,
  options: SweepOptions,
): Promise<CampaignSweep> => {
  const { reader, region } = options;
  const maxRecords = options.maxRecords ?? MAX_SEARCH_RECORDS;
  const found = new Map<string, CampaignRecord>();
  /** previewRecordID → the slice (of those that were not full) that returned it. */
  const leafOf = new Map<string, Slice>();
  const splitOn = new Set<string>();
  const problems = new Set<string>();
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

  const slices: Slice[] = WORKED_STATES.map((state) => ({
    pinned: [criterion('sys_worked_state', 'EQUALS', state)],
  }));
  const splitSlice = async (slice: Slice, sample: readonly CampaignRecord[]) => {
    andProbe ??= combinesWithAnd();
    if (!(await andProbe)) {
      problems.add(
        'the platform does not combine search criteria with AND, so a full slice cannot be split',
      );
      return;
    }
    // The key being split goes on; a slice pinned to one value of it moves to the next key.
    const key =
      slice.key ??
      options.splitKeys.find(
        (k) => !slice.pinned.some((c) => c.key === k && c.condition === 'EQUALS'),
      );
    const bound = key === undefined ? undefined : medianOf(sample, key);
    if (key === undefined || bound === undefined || slice.pinned.length + 3 > MAX_SEARCH_CRITERIA) {
      problems.add(
        `a slice is still full and none of the split keys (${options.splitKeys.join(', ')}) can split it further`,
      );
      return;
    }
    splitOn.add(key);
    slices.push(
      { ...slice, key, below: bound },
      { pinned: [...slice.pinned, criterion(key, 'EQUALS', bound)] },
      { ...slice, key, above: bound },
    );
  };

  const worker = async (): Promise<void> => {
    for (let slice = slices.shift(); slice !== undefined; slice = slices.shift()) {
      const records = await search(criteriaOf(slice));
      for (const record of records) {
        found.set(record.previewRecordID, record);
        if (!inSlice(slice, record)) {
          problems.add(
            `a search returned a record outside its slice: the platform orders "${slice.key}" differently from the sweep's assumption`,
          );
        }
      }
      if (records.length >= maxRecords) {
        await splitSlice(slice, records);
        continue;
      }
      for (const record of records) {
        const other = leafOf.get(record.previewRecordID);
        if (other !== undefined && other !== slice) {
          problems.add('a record came back from two slices that cannot overlap');
        }
        leafOf.set(record.previewRecordID, slice);
      }
    }
  };
  // Workers take slices until none is left; a split adds slices while others still run.
  const concurrency = options.concurrency ?? 4;
  do {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, Math.max(1, slices.length)) }, worker),
    );
  } while (slices.length > 0);

  const records = [...found.values()];
  for (const key of splitOn) {
    const without = records.filter((r) => itemValue(r, key) === undefined).length;
    if (without > 0) {
      problems.add(
        `${without} record(s) lack the split key "${key}", so others like them may be invisible in split slices`,
      );
    }
  }
  return {
    campaignName,
    records,
    complete: problems.size === 0,
    ...(problems.size === 0 ? {} : { incompleteBecause: [...problems].join('; ') }),
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
  const found = (
    await mapLimit(queue, options.concurrency ?? 4, (id) =>
      options.reader.search({
        campaignName: sweep.campaignName,
        region: options.region,
        clientId: id,
      }),
    )
  ).flat();
  const searches = queue.length;
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
  const swept = new Set(sweep.records.map((r) => r.previewRecordID));
  return {
    ...sweep,
    records: [...sweep.records, ...found.filter((r) => !swept.has(r.previewRecordID))],
    complete: sweep.complete && lacking.length === 0,
    ...(because === undefined ? {} : { incompleteBecause: because }),
    searches: sweep.searches + searches,
  };
};
