import * as z from 'zod/mini';
import type { Action } from '../core/action';
import { answerMeansApplied } from '../core/outcome';
import { pickDefined } from '../core/pick-defined';
import type { RecordOp } from '../entities/record-family/model';
import { campaignName, recordAddress, requireLocator } from '../messages/common';
import { recordName } from './record-names';

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
  ordering: {
    entity: 'record-family',
    rank: 'delete',
    name: recordName,
    op: (message): RecordOp => ({ kind: 'delete', campaign: message.campaignName }),
  },
};
