import * as z from 'zod';
import {
  campaignName,
  checkRecordData,
  correlationId,
  dataItem,
  epochMillis,
  MAX_DATA_ITEMS,
  MAX_KEY_LENGTH,
  nonEmpty,
  region,
} from './common';

export const addOrUpdateCampaignRecordMessage = z
  .strictObject({
    correlationId,
    campaignName,
    region,
    previewRecordId: nonEmpty()
      .optional()
      .describe('Locates an existing record for update; ignored when no record matches.'),
    clientId: nonEmpty().describe('Client-supplied id, unique in the campaign.'),
    clientIdFieldName: nonEmpty(MAX_KEY_LENGTH)
      .optional()
      .describe('Data key under which clientId is stored on add. Default "Id".'),
    preferredAgent: z.string().max(256).optional(),
    nextEarliestWorkTimeUTC: epochMillis.optional(),
    previewRecordData: z
      .array(dataItem)
      .min(1, 'must hold at least one data item')
      .max(MAX_DATA_ITEMS, `must hold at most ${MAX_DATA_ITEMS} data items`),
  })
  .check(checkRecordData);

export type AddOrUpdateCampaignRecordMessage = z.infer<typeof addOrUpdateCampaignRecordMessage>;
