import * as z from 'zod/mini';
import type { Action } from '../core/action';
import type { FieldValue } from '../core/ledger/entity';
import type { StepResult } from '../core/ledger/entity-ledger';
import { recordLocation } from '../core/ledger/locations';
import { pickFields, stepResult } from '../core/ledger/step-result';
import { alreadyApplied, success } from '../core/outcome';
import { pickDefined } from '../core/pick-defined';
import type { CallOptions, PlatformCaller } from '../core/platform-caller';
import {
  campaignName,
  crossFieldCheck,
  nonEmpty,
  RECORD_ROUTING_FIELDS,
  recordAddress,
  recordRouting,
  requireLocator,
} from '../messages/common';
import { setFields } from './change-campaign-record-status';
import { deleteCampaignRecord } from './delete-campaign-record';
import {
  asRecordFields,
  findRecord,
  notYetThere,
  readdressed,
  recordKey,
  routingSets,
  withoutStale,
} from './record-steps';
import { searchCampaignRecords } from './search-campaign-records';

/**
 * A transfer within the same campaign is not a move the spec describes; the platform's answer
 * to it is not shown, so it is refused here with a reason rather than retried as a FAILED.
 */
const differentCampaigns = crossFieldCheck(
  z.object({ campaignName: z.string(), transferToCampaign: z.string() }),
  (value, ctx) => {
    if (value.campaignName === value.transferToCampaign) {
      ctx.addIssue({
        code: 'custom',
        path: ['transferToCampaign'],
        message: 'must differ from campaignName (the record is already in that campaign)',
      });
    }
  },
);

export const transferCampaignRecordMessage = z
  .strictObject({
    ...recordAddress(campaignName.check(z.describe('Campaign the record is currently in.'))),
    transferToCampaign: nonEmpty().check(z.describe('Case-sensitive destination campaign.')),
    ...recordRouting(),
  })
  .check(requireLocator, differentCampaigns);

export type TransferCampaignRecordMessage = z.infer<typeof transferCampaignRecordMessage>;

export const transferCampaignRecord: Action<
  'transfer-campaign-record',
  TransferCampaignRecordMessage
> = {
  name: 'transfer-campaign-record',
  service: 'realtime',
  endpoint: 'transferCampaignRecord',
  kind: 'write',
  schema: transferCampaignRecordMessage,
  requestFields: (message) =>
    pickDefined(message, [
      'previewRecordId',
      'clientId',
      'transferToCampaign',
      ...RECORD_ROUTING_FIELDS,
    ]),
  execute: async (message, platform, call) => {
    const outcome = await platform.send(transferCampaignRecord, message, call);
    if (outcome.code !== 'NORECORDFOUND') return outcome;
    // Gone from the source campaign: done already if it now sits in the destination campaign.
    const lookup = await platform.send(
      searchCampaignRecords,
      {
        campaignName: message.transferToCampaign,
        region: message.region,
        previewRecordId: message.previewRecordId,
        clientId: message.clientId,
      },
      call,
    );
    if (lookup.category === 'retryable') return lookup;
    if (lookup.code === 'SUCCESS' && searchCampaignRecords.records(lookup).length > 0) {
      return alreadyApplied(
        outcome,
        'ALREADY_TRANSFERRED',
        `record is no longer in "${message.campaignName}" and already in "${message.transferToCampaign}"`,
      );
    }
    return {
      ...outcome,
      message: `no record with that id in "${message.campaignName}" nor in "${message.transferToCampaign}"`,
    };
  },
  ordering: readdressed<TransferCampaignRecordMessage>({
    kind: 'move',
    location: recordKey,
    destination: (message, campaignRegion) =>
      recordLocation(
        message.region ?? campaignRegion,
        message.transferToCampaign,
        message.clientId ?? '',
      ),
    destinationAddress: (message) => ({ campaignName: message.transferToCampaign }),
    sets: (message) => routingSets(message),
    apply: async (message, decision, platform, call) => {
      if (decision.historic === true && message.clientId !== undefined) {
        // A later move took the record on already: set what this one sets, where it is now.
        const routing = pickFields(routingSets(message), decision.fresh);
        const set = await setFields(
          {
            campaignName: message.campaignName,
            region: message.region,
            clientId: message.clientId,
          },
          asRecordFields(routing),
          platform,
          call,
        );
        return stepResult(set);
      }
      if (decision.deletedAtDestination === true && message.clientId !== undefined) {
        // Moved and then deleted there: the record ends absent, so the source copy goes.
        const removed = await platform.send(
          deleteCampaignRecord,
          {
            campaignName: message.campaignName,
            region: message.region,
            clientId: message.clientId,
          },
          call,
        );
        if (removed.category !== 'success' && removed.code !== 'NORECORDFOUND') {
          return stepResult(removed);
        }
        return stepResult(
          success(
            'DELETED_AT_DESTINATION',
            `the record was deleted in "${message.transferToCampaign}" after this move: removed from "${message.campaignName}"`,
          ),
          { kind: 'absent' },
        );
      }
      if (decision.mergeInto !== undefined && message.clientId !== undefined) {
        return mergeMove(
          { ...message, clientId: message.clientId },
          decision.mergeInto.fields,
          // Only a record known to be in the source can have been removed by our earlier
          // attempt; one an older add of ours made (or may have made) was there in the model.
          (decision.ourEarlierAttempt && decision.entity === 'present') ||
            decision.createdBefore === true,
          platform,
          call,
        );
      }
      const outcome = await platform.send(
        transferCampaignRecord,
        withoutStale(message, decision),
        call,
      );
      if (outcome.code !== 'NORECORDFOUND' || message.clientId === undefined) {
        return stepResult(outcome);
      }
      // Not in the source campaign: moved already by our own earlier attempt, not there yet, or
      // the destination holds another record with this clientId.
      const found = await findRecord(
        {
          campaignName: message.transferToCampaign,
          region: message.region,
          clientId: message.clientId,
        },
        platform,
        call,
      );
      if (found.kind === 'failed') {
        // An earlier attempt of this call that went unanswered may be why the source is empty:
        // the move stays in doubt, so older events keep waiting for the next retry.
        return stepResult(found.outcome, {
          kind: outcome.afterDoubt === true ? 'uncertain' : 'unchanged',
        });
      }
      if (found.kind === 'absent') {
        // In neither campaign: no attempt of this move moved anything. Saying so settles the
        // doubt an unanswered attempt left, so the older add this move needs may go ahead.
        return notYetThere(outcome, 'transferCampaignRecord', { kind: 'notMoved' });
      }
      // Our earlier try can only have moved a record that was in the source: one the ledger
      // knows there, or one it knows nothing of (created outside) when no add of ours made one
      // there. An earlier try of this very call that failed unanswered counts as ours.
      const couldHaveMovedIt =
        decision.entity === 'present' ||
        (decision.entity === 'unknown' && decision.destinationOurs !== true);
      const ours = decision.ourEarlierAttempt || outcome.afterDoubt === true;
      if (decision.alreadyMovedThere === true || (ours && couldHaveMovedIt)) {
        return stepResult(
          success(
            'ALREADY_TRANSFERRED',
            `an earlier attempt of this transfer moved the record to "${message.transferToCampaign}"`,
            outcome.attempts,
          ),
          { kind: 'applied' },
        );
      }
      if (decision.destinationOurs === true) {
        // Likely the record a later add of ours created there: once that add and this record's
        // own add have settled, the move merges into it.
        return notYetThere(outcome, 'transferCampaignRecord');
      }
      return stepResult(
        {
          ...outcome,
          category: 'permanent',
          code: 'TRANSFER_TARGET_OCCUPIED',
          message: `the record is not in "${message.campaignName}", and "${message.transferToCampaign}" already holds a record with this clientId that this integration did not move there: check both campaigns before redriving`,
        },
        // Not ours there: no attempt of this move moved anything, so no event waits for it.
        { kind: 'notMoved' },
      );
    },
  }),
};

/**
 * The destination already holds the moved record (events sent there after the move arrived
 * first): the copy still in the source campaign goes, and what the source knew that is newer
 * than the destination's fields is set there.
 */
const mergeMove = async (
  message: TransferCampaignRecordMessage & { readonly clientId: string },
  fields: Readonly<Record<string, FieldValue>>,
  wasThere: boolean,
  platform: PlatformCaller,
  call: CallOptions,
): Promise<StepResult> => {
  // Only a record that is in the source (or arrives there) was moved; one never added there
  // means the move could not happen (its add may still be on its way: wait for it, and let it
  // go ahead, since nothing was moved from here). A record our earlier attempt removed, or one
  // an older add of ours made, was there: the destination's record is the moved one, and older
  // events that follow the move (that add too, should it land late) are set there.
  const source = await findRecord(message, platform, call);
  if (source.kind === 'failed') return stepResult(source.outcome, { kind: 'unchanged' });
  if (source.kind === 'absent' && !wasThere) {
    return notYetThere(
      { category: 'retryable', code: 'NORECORDFOUND', message: '', attempts: 0 },
      'transferCampaignRecord',
      { kind: 'notMoved' },
    );
  }
  if (source.kind === 'found') {
    const removed = await platform.send(
      deleteCampaignRecord,
      { campaignName: message.campaignName, region: message.region, clientId: message.clientId },
      call,
    );
    if (removed.category !== 'success' && removed.code !== 'NORECORDFOUND') {
      return stepResult(removed);
    }
  }
  const routing = pickFields(fields, ['state', 'agent', 'skillQueue', 'nextWork', 'timeZone']);
  if (Object.keys(routing).length > 0) {
    const set = await setFields(
      {
        campaignName: message.transferToCampaign,
        region: message.region,
        clientId: message.clientId,
      },
      asRecordFields(routing),
      platform,
      call,
    );
    if (set.category !== 'success') return stepResult(set, { kind: 'uncertain' });
  }
  return stepResult(
    success(
      'MERGED_INTO_DESTINATION',
      `"${message.transferToCampaign}" already held this record (later events reached it first): the copy in "${message.campaignName}" was removed`,
    ),
    { kind: 'applied' },
  );
};
