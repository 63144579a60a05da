import * as z from 'zod/mini';
import type { WriteAction } from '../core/pipeline/action';
import { pickDefined } from '../core/pipeline/pick-defined';
import { WORKED_STATES } from '../core/platform/platform-responses';
import type { RecordOp } from '../entities/record-family/model';
import {
  crossFieldCheck,
  epochMillis,
  RECORD_ROUTING_FIELDS,
  recordAddress,
  recordRouting,
  requireLocator,
} from '../messages/common';
import { recordName, routingOf } from './record-names';

// The states a status change sets: the platform's own list (`WorkedState`), defined once.
export { WORKED_STATES, type WorkedState } from '../core/platform/platform-responses';

export const changeCampaignRecordStatusMessage = z
  .strictObject({
    ...recordAddress(),
    previewRecordStateEnum: z.enum(WORKED_STATES, {
      error: `must be one of ${WORKED_STATES.join(', ')}`,
    }),
    ...recordRouting(
      z.optional(epochMillis).check(z.describe('Required when previewRecordStateEnum is WORKED.')),
    ),
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

export const changeCampaignRecordStatus: WriteAction<
  'change-campaign-record-status',
  ChangeCampaignRecordStatusMessage
> = {
  name: 'change-campaign-record-status',
  service: 'realtime',
  endpoint: 'changeCampaignRecordStatus',
  kind: 'write',
  schema: changeCampaignRecordStatusMessage,
  requestFields: (message) =>
    pickDefined(message, [
      'previewRecordId',
      'clientId',
      'previewRecordStateEnum',
      ...RECORD_ROUTING_FIELDS,
    ]),
  // REMOVED takes the record out of the campaign's work: as final for the agents as a delete.
  destructive: (message) => message.previewRecordStateEnum === 'REMOVED',
  ordering: {
    entity: 'record-family',
    rank: 'change',
    name: recordName,
    op: (message): RecordOp => ({
      kind: 'status',
      campaign: message.campaignName,
      state: message.previewRecordStateEnum,
      routing: routingOf(message),
    }),
  },
};
