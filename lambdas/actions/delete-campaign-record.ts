import * as z from 'zod/mini';
import type { WriteAction } from '../core/pipeline/action';
import { pickDefined } from '../core/pipeline/pick-defined';
import type { RecordOp } from '../entities/record-family/model';
import { campaignName, recordAddress, requireLocator } from '../messages/common';
import { recordName } from './record-names';

export const deleteCampaignRecordMessage = z
  .strictObject({
    ...recordAddress(campaignName.check(z.describe('Campaign the record is in.'))),
  })
  .check(requireLocator);

export type DeleteCampaignRecordMessage = z.infer<typeof deleteCampaignRecordMessage>;

export const deleteCampaignRecord: WriteAction<
  'delete-campaign-record',
  DeleteCampaignRecordMessage
> = {
  name: 'delete-campaign-record',
  service: 'realtime',
  endpoint: 'deleteRecordFromCampaign',
  kind: 'write',
  schema: deleteCampaignRecordMessage,
  requestFields: (message) => pickDefined(message, ['previewRecordId', 'clientId']),
  destructive: () => true,
  ordering: {
    entity: 'record-family',
    rank: 'delete',
    name: recordName,
    op: (message): RecordOp => ({ kind: 'delete', campaign: message.campaignName }),
  },
};
