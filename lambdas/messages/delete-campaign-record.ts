import * as z from 'zod/mini';
import { campaignName, correlationId, recordLocator, region, requireLocator } from './common';

export const deleteCampaignRecordMessage = z
  .strictObject({
    correlationId,
    campaignName: campaignName.check(z.describe('Campaign the record is in.')),
    region,
    ...recordLocator,
  })
  .check(requireLocator);

export type DeleteCampaignRecordMessage = z.infer<typeof deleteCampaignRecordMessage>;
