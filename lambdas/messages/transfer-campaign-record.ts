import * as z from 'zod/mini';
import {
  campaignName,
  correlationId,
  crossFieldCheck,
  epochMillis,
  ianaTimeZone,
  nonEmpty,
  occurredAt,
  recordLocator,
  region,
  requireLocator,
} from './common';

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
    correlationId,
    occurredAt,
    campaignName: campaignName.check(z.describe('Campaign the record is currently in.')),
    region,
    ...recordLocator,
    transferToCampaign: nonEmpty().check(z.describe('Case-sensitive destination campaign.')),
    skillQueue: z.optional(nonEmpty()),
    preferredAgent: z
      .optional(z.string().check(z.maxLength(256)))
      .check(z.describe('Empty string clears the preference.')),
    nextEarliestWorkTimeUTC: z.optional(epochMillis),
    timeZone: z.optional(ianaTimeZone),
  })
  .check(requireLocator, differentCampaigns);

export type TransferCampaignRecordMessage = z.infer<typeof transferCampaignRecordMessage>;
