import * as z from 'zod';
import {
  campaignName,
  correlationId,
  crossFieldCheck,
  epochMillis,
  ianaTimeZone,
  nonEmpty,
  recordLocator,
  region,
  requireLocator,
} from './common';

export const RECORD_STATES = ['NOTWORKED', 'WORKED', 'COMPLETED', 'REMOVED'] as const;
export type RecordState = (typeof RECORD_STATES)[number];

export const changeCampaignRecordStatusMessage = z
  .strictObject({
    correlationId,
    campaignName,
    region,
    ...recordLocator,
    previewRecordStateEnum: z.enum(RECORD_STATES, {
      error: `must be one of ${RECORD_STATES.join(', ')}`,
    }),
    skillQueue: nonEmpty().optional(),
    preferredAgent: z.string().max(256).optional().describe('Empty string clears the preference.'),
    nextEarliestWorkTimeUTC: epochMillis
      .optional()
      .describe('Required when previewRecordStateEnum is WORKED.'),
    timeZone: ianaTimeZone.optional(),
  })
  .check(
    requireLocator,
    crossFieldCheck(
      z.object({
        previewRecordStateEnum: z.unknown().optional(),
        nextEarliestWorkTimeUTC: z.unknown().optional(),
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
