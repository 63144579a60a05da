import * as z from 'zod/mini';
import type { WriteAction } from '../core/pipeline/action';
import { pickDefined } from '../core/pipeline/pick-defined';
import type { RecordOp } from '../entities/record-family/model';
import {
  campaignName,
  checkRecordData,
  correlationId,
  dataItem,
  epochMillis,
  MAX_DATA_ITEMS,
  MAX_KEY_LENGTH,
  nonEmpty,
  occurredAt,
  region,
} from '../messages/common';
import { recordName } from './record-names';

export const addOrUpdateCampaignRecordMessage = z
  .strictObject({
    correlationId,
    occurredAt,
    campaignName,
    region,
    previewRecordId: z
      .optional(nonEmpty())
      .check(z.describe('Locates an existing record for update; ignored when no record matches.')),
    clientId: nonEmpty().check(z.describe('Client-supplied id, unique in the campaign.')),
    clientIdFieldName: z
      .optional(nonEmpty(MAX_KEY_LENGTH))
      .check(z.describe('Data key under which clientId is stored on add. Default "Id".')),
    preferredAgent: z.optional(z.string().check(z.maxLength(256))),
    nextEarliestWorkTimeUTC: z.optional(epochMillis),
    previewRecordData: z
      .array(dataItem)
      .check(
        z.minLength(1, 'must hold at least one data item'),
        z.maxLength(MAX_DATA_ITEMS, `must hold at most ${MAX_DATA_ITEMS} data items`),
      ),
  })
  .check(checkRecordData);

export type AddOrUpdateCampaignRecordMessage = z.infer<typeof addOrUpdateCampaignRecordMessage>;

export const addOrUpdateCampaignRecord: WriteAction<
  'add-or-update-campaign-record',
  AddOrUpdateCampaignRecordMessage
> = {
  name: 'add-or-update-campaign-record',
  service: 'realtime',
  endpoint: 'addOrUpdateCampaignRecord',
  kind: 'write',
  schema: addOrUpdateCampaignRecordMessage,
  requestFields: (message) => ({
    ...pickDefined(message, [
      'previewRecordId',
      'clientId',
      'clientIdFieldName',
      'preferredAgent',
      'nextEarliestWorkTimeUTC',
    ]),
    previewRecordData: message.previewRecordData.map((item) =>
      pickDefined(item, ['key', 'value', 'displayOrder']),
    ),
  }),
  ordering: {
    entity: 'record-family',
    rank: 'add',
    name: recordName,
    op: (message): RecordOp => ({
      kind: 'upsert',
      campaign: message.campaignName,
      items: message.previewRecordData,
      ...pickDefined(message, ['clientIdFieldName']),
      ...(message.preferredAgent === undefined ? {} : { agent: message.preferredAgent }),
      ...(message.nextEarliestWorkTimeUTC === undefined
        ? {}
        : { nextWork: message.nextEarliestWorkTimeUTC }),
    }),
  },
};
