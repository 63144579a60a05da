import type { OrderedSteps } from '../core/action';
import type { FieldValue } from '../core/ledger/entity';
import type { ApplyDecision, StepResult } from '../core/ledger/entity-ledger';
import { recordLocation } from '../core/ledger/locations';
import { stepResult } from '../core/ledger/step-result';
import type { Outcome } from '../core/outcome';
import type { CallOptions, PlatformCaller } from '../core/platform-caller';
import type { CampaignRecord } from '../core/platform-responses';
import type { PlatformRegion } from '../core/regions';
import { searchCampaignRecords } from './search-campaign-records';

/**
 * What the four campaign-record writes share: where a record is kept in the ledger, its
 * routing fields, finding it, and addressing it where it is now.
 */

/** Ledger fields of a record besides its data. */
export type RecordFields = {
  state?: string;
  agent?: string | null;
  skillQueue?: string;
  nextWork?: number;
  timeZone?: string;
};

export const asRecordFields = (values: Readonly<Record<string, FieldValue>>): RecordFields =>
  values as RecordFields;

/** A record addressed by clientId. */
export type Located = {
  readonly campaignName: string;
  readonly region?: PlatformRegion | undefined;
  readonly clientId: string;
};

/** The record's ledger key; undefined for a message that names it by previewRecordId only. */
export const recordKey = (
  message: { readonly campaignName: string; readonly region?: string; readonly clientId?: string },
  campaignRegion: string,
): string | undefined =>
  message.clientId === undefined
    ? undefined
    : recordLocation(message.region ?? campaignRegion, message.campaignName, message.clientId);

/** Optional routing fields of a change-status or transfer, as ledger fields. */
export const routingSets = (message: {
  readonly skillQueue?: string;
  readonly preferredAgent?: string;
  readonly nextEarliestWorkTimeUTC?: number;
  readonly timeZone?: string;
}): Record<string, FieldValue> => ({
  ...(message.skillQueue === undefined ? {} : { skillQueue: message.skillQueue }),
  ...(message.preferredAgent === undefined ? {} : { agent: message.preferredAgent || null }),
  ...(message.nextEarliestWorkTimeUTC === undefined
    ? {}
    : { nextWork: message.nextEarliestWorkTimeUTC }),
  ...(message.timeZone === undefined ? {} : { timeZone: message.timeZone }),
});

/** The message without the optional fields the ledger found stale. */
export const withoutStale = <M extends object>(message: M, decision: ApplyDecision): M => {
  const copy: Record<string, unknown> = { ...(message as Record<string, unknown>) };
  const drop: Record<string, string> = {
    agent: 'preferredAgent',
    nextWork: 'nextEarliestWorkTimeUTC',
    skillQueue: 'skillQueue',
    timeZone: 'timeZone',
  };
  for (const field of decision.stale) {
    const property = drop[field];
    if (property !== undefined) delete copy[property];
  }
  return copy as unknown as M;
};

export const notYetThere = (
  outcome: Outcome,
  what: string,
  applied: StepResult['applied'] = { kind: 'unchanged' },
): StepResult =>
  stepResult(
    {
      ...outcome,
      category: 'retryable',
      code: 'RECORD_NOT_YET_THERE',
      message: `${what}: the record is not in the campaign (yet); its add may still be on its way in another queue, so this is retried until the retry window is spent`,
    },
    applied,
  );

/** Looks a record up by clientId: found, absent, or the lookup's own failure. */
export const findRecord = async (
  where: Located,
  platform: PlatformCaller,
  call: CallOptions,
): Promise<
  | { readonly kind: 'found'; readonly record: CampaignRecord }
  | { readonly kind: 'absent' }
  | { readonly kind: 'failed'; readonly outcome: Outcome }
> => {
  const lookup = await platform.send(
    searchCampaignRecords,
    { campaignName: where.campaignName, region: where.region, clientId: where.clientId },
    call,
  );
  if (lookup.code === 'NORECORDFOUND') return { kind: 'absent' };
  if (lookup.category !== 'success') return { kind: 'failed', outcome: lookup };
  const record = searchCampaignRecords.records(lookup)[0];
  return record === undefined ? { kind: 'absent' } : { kind: 'found', record };
};

/** The record moved since the event happened: the step addresses it where it is now. */
export const readdressed = <M>(steps: OrderedSteps<M>): OrderedSteps<M> => ({
  ...steps,
  apply: (message, decision, platform, call) =>
    steps.apply(
      decision.address === undefined ? message : { ...message, ...decision.address },
      decision,
      platform,
      call,
    ),
});
