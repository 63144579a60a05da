import * as z from 'zod/mini';
import type { Action } from '../core/action';
import type { FieldValue } from '../core/ledger/entity';
import type { StepResult } from '../core/ledger/entity-ledger';
import { pickFields, stepResult } from '../core/ledger/step-result';
import { answerMeansApplied, callMayHaveBeenApplied, success } from '../core/outcome';
import { pickDefined } from '../core/pick-defined';
import type { CallOptions, PlatformCaller } from '../core/platform-caller';
import { campaignName, recordAddress, requireLocator } from '../messages/common';
import {
  type AddOrUpdateCampaignRecordMessage,
  addOrUpdateCampaignRecord,
} from './add-or-update-campaign-record';
import { setFields } from './change-campaign-record-status';
import { deleted } from './deleted';
import { asRecordFields, findRecord, type Located, readdressed, recordKey } from './record-steps';

export const deleteCampaignRecordMessage = z
  .strictObject({
    ...recordAddress(campaignName.check(z.describe('Campaign the record is in.'))),
  })
  .check(requireLocator);

export type DeleteCampaignRecordMessage = z.infer<typeof deleteCampaignRecordMessage>;

export const deleteCampaignRecord: Action<'delete-campaign-record', DeleteCampaignRecordMessage> = {
  name: 'delete-campaign-record',
  service: 'realtime',
  endpoint: 'deleteRecordFromCampaign',
  kind: 'write',
  schema: deleteCampaignRecordMessage,
  requestFields: (message) => pickDefined(message, ['previewRecordId', 'clientId']),
  execute: async (message, platform, call) =>
    answerMeansApplied(
      await platform.send(deleteCampaignRecord, message, call),
      'NORECORDFOUND',
      'ALREADY_DELETED',
      `no such record in "${message.campaignName}": already deleted or never added`,
    ),
  destructive: () => true,
  ordering: readdressed<DeleteCampaignRecordMessage>({
    kind: 'delete',
    location: recordKey,
    sets: () => ({}),
    apply: async (message, decision, platform, call) => {
      if (decision.recreate !== undefined && message.clientId !== undefined) {
        return recreate(
          { ...message, clientId: message.clientId },
          decision.recreate.keep,
          decision.pending,
          platform,
          call,
        );
      }
      return deleted(await deleteCampaignRecord.execute(message, platform, call), decision);
    },
  }),
};

type DataItems = AddOrUpdateCampaignRecordMessage['previewRecordData'];

/**
 * A delete older than a create already applied as an update: the record is deleted and added
 * afresh with the data it holds now (the later create's) and the fields later events set.
 */
const recreate = async (
  where: Located,
  keep: Readonly<Record<string, FieldValue>>,
  pending: Readonly<Record<string, unknown>> | undefined,
  platform: PlatformCaller,
  call: CallOptions,
): Promise<StepResult> => {
  const found = await findRecord(where, platform, call);
  if (found.kind === 'failed') return stepResult(found.outcome, { kind: 'unchanged' });
  // An earlier attempt that deleted the record but could not add it again left its data.
  let data = pending?.previewRecordData as DataItems | undefined;
  if (found.kind === 'found') {
    // The item the platform stores the clientId under goes back in as clientId.
    data = found.record.previewRecordData
      .filter((item) => !(item.key === 'Id' && item.value === where.clientId))
      .map(({ key, value, displayOrder }) => ({
        key,
        value,
        ...(displayOrder === undefined ? {} : { displayOrder }),
      }));
    const removed = await platform.send(deleteCampaignRecord, where, call);
    if (removed.category !== 'success' && removed.code !== 'NORECORDFOUND') {
      // The delete may have gone through unanswered: keep the data for the retry to add.
      return stepResult(
        removed,
        callMayHaveBeenApplied(removed)
          ? { kind: 'uncertain', pending: { previewRecordData: data } }
          : { kind: 'unchanged' },
      );
    }
  }
  if (data === undefined) {
    return stepResult(
      success('ALREADY_ABSENT', 'the record is not in the campaign; nothing to re-create'),
      { kind: 'absent' },
    );
  }
  const fields = asRecordFields(keep);
  const added = await platform.send(
    addOrUpdateCampaignRecord,
    {
      campaignName: where.campaignName,
      region: where.region,
      clientId: where.clientId,
      previewRecordData: data,
      ...(fields.agent === undefined ? {} : { preferredAgent: fields.agent ?? '' }),
      ...(fields.nextWork === undefined ? {} : { nextEarliestWorkTimeUTC: fields.nextWork }),
    },
    call,
  );
  if (added.category !== 'success') {
    // Deleted but not added again: the data waits in the ledger for the retry to add it.
    return stepResult(
      { ...added, category: 'retryable', code: 'RECREATE_INCOMPLETE' },
      { kind: 'uncertain', pending: { previewRecordData: data } },
    );
  }
  const routing = pickFields(keep, ['state', 'skillQueue', 'timeZone']);
  if (Object.keys(routing).length > 0) {
    const set = await setFields(
      where,
      { state: 'NOTWORKED', ...asRecordFields(routing) },
      platform,
      call,
    );
    if (set.category !== 'success') {
      return stepResult(set, { kind: 'uncertain', pending: { previewRecordData: data } });
    }
  }
  return stepResult(
    success('RECREATED', 'deleted and added afresh: a newer add had been applied as an update', 0),
    { kind: 'applied' },
  );
};
