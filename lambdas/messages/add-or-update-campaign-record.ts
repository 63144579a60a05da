import * as z from 'zod';
import {
  campaignName,
  checkRecordData,
  correlationId,
  dataItem,
  epochMillis,
  MAX_DATA_ITEMS,
  nonEmpty,
  region,
} from './common';
import { DEFAULT_CLIENT_ID_FIELD_NAME } from './rules';

export const addOrUpdateCampaignRecordMessage = z
  .strictObject({
    correlationId,
    campaignName,
    region,
    previewRecordId: nonEmpty()
      .optional()
      .describe('Locates an existing record for update; ignored when no record matches.'),
    clientId: nonEmpty().describe('Client-supplied id, unique in the campaign.'),
    clientIdFieldName: nonEmpty(128)
      .optional()
      .describe('Data key under which clientId is stored on add. Default "Id".'),
    preferredAgent: z.string().max(256).optional(),
    nextEarliestWorkTimeUTC: epochMillis.optional(),
    previewRecordData: z
      .array(dataItem)
      .min(1, 'must hold at least one data item')
      .max(MAX_DATA_ITEMS, `must hold at most ${MAX_DATA_ITEMS} data items`),
  })
  .superRefine((message, ctx) => {
    checkRecordData(message.previewRecordData, ctx);
    const reserved = message.clientIdFieldName ?? DEFAULT_CLIENT_ID_FIELD_NAME;
    message.previewRecordData.forEach((item, index) => {
      if (item.key === reserved) {
        ctx.addIssue({
          code: 'custom',
          path: ['previewRecordData', index, 'key'],
          message: `data key "${reserved}" is reserved: it equals clientIdFieldName, under which the platform stores clientId (send the id as clientId instead)`,
        });
      }
    });
  });

export type AddOrUpdateCampaignRecordMessage = z.infer<typeof addOrUpdateCampaignRecordMessage>;
