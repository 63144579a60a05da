import * as z from 'zod/mini';
import type { Action } from '../core/action';
import { pickFields, stepResult } from '../core/ledger/step-result';
import type { Outcome } from '../core/outcome';
import { pickDefined } from '../core/pick-defined';
import type { CallOptions, PlatformCaller } from '../core/platform-caller';
import { platformTimeMillis } from '../core/platform-responses';
import {
  crossFieldCheck,
  epochMillis,
  RECORD_ROUTING_FIELDS,
  recordAddress,
  recordRouting,
  requireLocator,
} from '../messages/common';
import {
  asRecordFields,
  findRecord,
  type Located,
  notYetThere,
  type RecordFields,
  readdressed,
  recordKey,
  routingSets,
} from './record-steps';

export const RECORD_STATES = ['NOTWORKED', 'WORKED', 'COMPLETED', 'REMOVED'] as const;
export type RecordState = (typeof RECORD_STATES)[number];

export const changeCampaignRecordStatusMessage = z
  .strictObject({
    ...recordAddress(),
    previewRecordStateEnum: z.enum(RECORD_STATES, {
      error: `must be one of ${RECORD_STATES.join(', ')}`,
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

/** What a change-status sets, as the ledger keeps it. */
const statusSets = (message: ChangeCampaignRecordStatusMessage) => ({
  state: message.previewRecordStateEnum,
  ...routingSets(message),
});

export const changeCampaignRecordStatus: Action<
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
  execute: (message, platform, call) => platform.send(changeCampaignRecordStatus, message, call),
  // REMOVED takes the record out of the campaign's work: as final for the agents as a delete.
  destructive: (message) => message.previewRecordStateEnum === 'REMOVED',
  ordering: readdressed<ChangeCampaignRecordStatusMessage>({
    kind: 'change',
    location: recordKey,
    sets: statusSets,
    apply: async (message, decision, platform, call) => {
      if (message.clientId === undefined) throw new Error('ordered without a clientId');
      const where = { ...message, clientId: message.clientId };
      // With nothing stale, the message goes as it is; otherwise only its fresh fields, with the
      // state and (for WORKED) the next work time the request needs taken from the record.
      const fresh = pickFields(statusSets(message), decision.fresh);
      const outcome =
        decision.stale.length === 0
          ? await platform.send(changeCampaignRecordStatus, message, call)
          : await setFields(where, asRecordFields(fresh), platform, call);
      if (outcome.code === 'NORECORDFOUND') {
        return notYetThere(outcome, 'changeCampaignRecordStatus');
      }
      return stepResult(outcome);
    },
  }),
};

/**
 * Sets routing fields (and the state) of a record with one change-status; the other record
 * writes use it for what the ledger says is theirs to set. The request needs a state; without
 * one to set, the record's current state (and, for WORKED, its next work time) is read first.
 */
export const setFields = async (
  where: Located,
  fields: RecordFields,
  platform: PlatformCaller,
  call: CallOptions,
): Promise<Outcome> => {
  let state = fields.state;
  let nextWork = fields.nextWork;
  if (state === undefined || (state === 'WORKED' && nextWork === undefined)) {
    const found = await findRecord(where, platform, call);
    if (found.kind === 'failed') return found.outcome;
    if (found.kind === 'absent') {
      return notYetThere(
        { category: 'retryable', code: 'NORECORDFOUND', message: '', attempts: 0 },
        'changeCampaignRecordStatus',
      ).outcome;
    }
    state ??= found.record.workedState;
    nextWork ??= platformTimeMillis(found.record.nextEarliestWorkTime);
  }
  const message: ChangeCampaignRecordStatusMessage = {
    campaignName: where.campaignName,
    region: where.region,
    clientId: where.clientId,
    previewRecordStateEnum: state as RecordState,
    ...(fields.skillQueue === undefined ? {} : { skillQueue: fields.skillQueue }),
    ...(fields.agent === undefined ? {} : { preferredAgent: fields.agent ?? '' }),
    ...(nextWork === undefined ? {} : { nextEarliestWorkTimeUTC: nextWork }),
    ...(fields.timeZone === undefined ? {} : { timeZone: fields.timeZone }),
  };
  return platform.send(changeCampaignRecordStatus, message, call);
};
