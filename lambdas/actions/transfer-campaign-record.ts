import * as z from 'zod/mini';
import type { WriteAction } from '../core/pipeline/action';
import { pickDefined } from '../core/pipeline/pick-defined';
import type { RecordOp } from '../entities/record-family/model';
import {
  campaignName,
  crossFieldCheck,
  destinationCampaign,
  RECORD_ROUTING_FIELDS,
  recordAddress,
  recordRouting,
  requireLocator,
} from '../messages/common';
import { recordName, routingOf } from './record-names';

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
    transferToCampaign: destinationCampaign,
    ...recordRouting(),
  })
  .check(requireLocator, differentCampaigns);

export type TransferCampaignRecordMessage = z.infer<typeof transferCampaignRecordMessage>;

export const transferCampaignRecord: WriteAction<
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
  ordering: {
    entity: 'record-family',
    rank: 'transfer',
    name: recordName,
    op: (message): RecordOp => ({
      kind: 'transfer',
      campaign: message.campaignName,
      to: message.transferToCampaign,
      routing: routingOf(message),
    }),
  },
};
