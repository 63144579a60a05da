import * as z from 'zod/mini';
import {
  campaignName,
  correlationId,
  occurredAt,
  recordLocator,
  region,
  requireLocator,
} from './common';

export const deleteCampaignRecordMessage = z
  .strictObject({
    correlationId,
    occurredAt,
    campaignName: campaignName.check(z.describe('Campaign the record is in.')),
    region,
    ...recordLocator,
  })
  .check(requireLocator);

export type DeleteCampaignRecordMessage = z.infer<typeof deleteCampaignRecordMessage>;
