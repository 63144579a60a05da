import * as z from 'zod';
import {
  campaignName,
  correlationId,
  epochMillis,
  ianaTimeZone,
  nonEmpty,
  recordLocator,
  region,
  requireLocator,
} from './common';

export const transferCampaignRecordMessage = z
  .strictObject({
    correlationId,
    campaignName: campaignName.describe('Campaign the record is currently in.'),
    region,
    ...recordLocator,
    transferToCampaign: nonEmpty().describe('Case-sensitive destination campaign.'),
    skillQueue: nonEmpty().optional(),
    preferredAgent: z.string().max(256).optional().describe('Empty string clears the preference.'),
    nextEarliestWorkTimeUTC: epochMillis.optional(),
    timeZone: ianaTimeZone.optional(),
  })
  .check(requireLocator);

export type TransferCampaignRecordMessage = z.infer<typeof transferCampaignRecordMessage>;
