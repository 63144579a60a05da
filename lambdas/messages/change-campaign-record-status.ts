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

export const RECORD_STATES = ['NOTWORKED', 'WORKED', 'COMPLETED', 'REMOVED'] as const;
export type RecordState = (typeof RECORD_STATES)[number];

export const changeCampaignRecordStatusMessage = z
  .strictObject({
    correlationId,
    occurredAt,
    campaignName,
    region,
    ...recordLocator,
    previewRecordStateEnum: z.enum(RECORD_STATES, {
      error: `must be one of ${RECORD_STATES.join(', ')}`,
    }),
    skillQueue: z.optional(nonEmpty()),
    preferredAgent: z
      .optional(z.string().check(z.maxLength(256)))
      .check(z.describe('Empty string clears the preference.')),
    nextEarliestWorkTimeUTC: z
      .optional(epochMillis)
      .check(z.describe('Required when previewRecordStateEnum is WORKED.')),
    timeZone: z.optional(ianaTimeZone),
  })
  .check(
    requireLocator,
    crossFieldCheck(
      z.object({
        previewRecordStateEnum: z.optional(z.unknown()),
        nextEarliestWorkTimeUTC: z.optional(z.unknown()),
      }),
      (message, ctx) => {
        if (
          message.previewRecordStateEnum === 'WORKED' &&
          message.nextEarliestWorkTimeUTC === undefined
        ) {
          ctx.addIssue({
            code: 'custom',
            path: ['nextEarliestWorkTimeUTC'],
            message: 'is required when previewRecordStateEnum is WORKED',
          });
        }
      },
    ),
  );

export type ChangeCampaignRecordStatusMessage = z.infer<typeof changeCampaignRecordStatusMessage>;
