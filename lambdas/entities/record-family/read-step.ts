import { searchCampaignRecords } from '../../actions/search-campaign-records';
import type { StepContext } from '../../core/ledger/entity-kind';
import { type Outcome, success } from '../../core/pipeline/outcome';
import type { CallOptions, PlatformCaller } from '../../core/platform/platform-caller';
import { type CampaignRecord, platformTimeMillis } from '../../core/platform/platform-responses';
import type { PlatformRegion } from '../../core/platform/regions';
import type { Observed } from './known';
import type { FamilyId, RecordEvent, RecordOp } from './model';
import type { RecordAnswer } from './operation';
import { failed, region } from './operation';
import { clientIdKeys, heldDataHash } from './record-data';
import type { RecordStep } from './steps';

type Context = StepContext<FamilyId, RecordOp>;

/**
 * The record's values as the ledger compares them: its data as the identity of the newest data
 * list of `events` it holds (`heldDataHash`), the rest as read.
 */
export const observedValues = (
  record: CampaignRecord,
  events: readonly RecordEvent[],
): Observed => {
  const upserts = events.flatMap(({ op }) => (op.kind === 'upsert' ? [op] : []));
  return {
    values: {
      data: heldDataHash(
        record,
        upserts.map((op) => op.items),
        clientIdKeys(upserts),
      ),
      state: record.workedState,
      agent: record.preferredAgent || null,
      skillQueue: record.skillQueue,
      nextWork: platformTimeMillis(record.nextEarliestWorkTime) ?? null,
    },
    ...(record.workAttempts === 0 ? {} : { workedAt: platformTimeMillis(record.lastAttemptTime) }),
  };
};

/** Looks the record up in a campaign: its values, `null` for none, or the look-up's failure. */
export const lookUp = async (
  campaign: string,
  { id, events, platform, call }: Context,
): Promise<{ readonly observed: Observed | null } | { readonly failed: Outcome }> => {
  const lookup = await platform.send(
    searchCampaignRecords,
    { campaignName: campaign, region: region(id), clientId: id.clientId },
    call,
  );
  if (lookup.code === 'NORECORDFOUND') return { observed: null };
  if (lookup.category !== 'success') return { failed: lookup };
  const record = searchCampaignRecords.records(lookup)[0];
  if (record === undefined) return { observed: null };
  const observed = observedValues(record, events);
  if (record.workAttempts > 0 && observed.workedAt === undefined) {
    // Without the time of the agent's work, no state could be weighed against it.
    return {
      failed: {
        category: 'retryable',
        code: 'MALFORMED_RESPONSE',
        message: `HTTP 200 but the record's lastAttemptTime is not a CCYY-MM-DD HH:MM:SS.mmm time, though it has ${record.workAttempts} work attempt(s)`,
        attempts: lookup.attempts,
      },
    };
  }
  return { observed };
};

/** The read step: settles a doubt, or finds what a campaign held before the ledger wrote there. */
export const runRead = async (
  step: Extract<RecordStep, { readonly kind: 'read' }>,
  context: Context,
): Promise<RecordAnswer> => {
  const found = await lookUp(step.campaign, context);
  if ('failed' in found) return failed(found.failed);
  return {
    outcome: success('SUCCESS', 'looked up'),
    status: 'done',
    finding:
      found.observed === null ? { kind: 'absent' } : { kind: 'found', observed: found.observed },
  };
};

/**
 * The clientId of the record a message names only by previewRecordId, by one search in the
 * campaign it names: undefined when no record there has that id.
 */
export const clientIdOf = async (
  where: {
    readonly campaignName: string;
    readonly region: string;
    readonly previewRecordId: string;
  },
  platform: PlatformCaller,
  call: CallOptions,
): Promise<
  | { readonly clientId: string | undefined; readonly attempts: number }
  | { readonly failed: Outcome }
> => {
  const lookup = await platform.send(
    searchCampaignRecords,
    {
      campaignName: where.campaignName,
      region: where.region as PlatformRegion,
      previewRecordId: where.previewRecordId,
    },
    call,
  );
  if (lookup.code === 'NORECORDFOUND') return { clientId: undefined, attempts: lookup.attempts };
  if (lookup.category !== 'success') return { failed: lookup };
  return {
    clientId: searchCampaignRecords.records(lookup)[0]?.clientId,
    attempts: lookup.attempts,
  };
};
