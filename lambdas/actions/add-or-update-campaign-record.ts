import * as z from 'zod/mini';
import type { Action } from '../core/action';
import { payloadHash } from '../core/ledger/event-version';
import { pickFields, stepResult } from '../core/ledger/step-result';
import { mayHaveBeenApplied, type Outcome } from '../core/outcome';
import { pickDefined } from '../core/pick-defined';
import type { CallOptions, PlatformCaller } from '../core/platform-caller';
import { type CampaignRecord, platformTimeMillis } from '../core/platform-responses';
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
import {
  DEFAULT_CLIENT_ID_FIELD_NAME,
  ITEM_TIME_ZONE_KEY,
  SKILL_QUEUE_KEY,
} from '../messages/rules';
import { setFields } from './change-campaign-record-status';
import { asRecordFields, readdressed, recordKey, withoutStale } from './record-steps';
import { searchCampaignRecords } from './search-campaign-records';

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

/**
 * True when the stored record already is what this add-or-update asks for: the same data items
 * (besides the clientId item the platform stores on add) and the same optional fields.
 */
const holdsMessage = (
  record: CampaignRecord,
  message: AddOrUpdateCampaignRecordMessage,
): boolean => {
  const clientIdKey = message.clientIdFieldName ?? DEFAULT_CLIENT_ID_FIELD_NAME;
  const stored = record.previewRecordData.filter(
    (item) => !(item.key === clientIdKey && item.value === message.clientId),
  );
  const sameData =
    stored.length === message.previewRecordData.length &&
    message.previewRecordData.every((item, i) => {
      const found = stored[i];
      return (
        found !== undefined &&
        found.key === item.key &&
        found.value === item.value &&
        (item.displayOrder === undefined || found.displayOrder === item.displayOrder)
      );
    });
  const agent = message.preferredAgent;
  const sameAgent =
    agent === undefined ||
    (agent === '' ? !record.preferredAgent : record.preferredAgent === agent);
  const time = message.nextEarliestWorkTimeUTC;
  const sameTime = time === undefined || platformTimeMillis(record.nextEarliestWorkTime) === time;
  return sameData && sameAgent && sameTime;
};

/**
 * Looks the record up (by previewRecordId, then clientId): `in-place` with an ALREADY_APPLIED
 * outcome when it already holds the message, `send` when it is absent or differs, `unknown`
 * when the lookup got no answer.
 */
const lookUpRecord = async (
  message: AddOrUpdateCampaignRecordMessage,
  platform: PlatformCaller,
  call: CallOptions,
): Promise<{ kind: 'in-place'; outcome: Outcome } | { kind: 'send' | 'unknown' }> => {
  const locators = [
    ...(message.previewRecordId === undefined
      ? []
      : [{ previewRecordId: message.previewRecordId }]),
    { clientId: message.clientId },
  ];
  for (const locator of locators) {
    const lookup = await platform.send(
      searchCampaignRecords,
      { campaignName: message.campaignName, region: message.region, ...locator },
      call,
    );
    if (lookup.code === 'NORECORDFOUND') continue;
    if (lookup.category !== 'success') return { kind: 'unknown' };
    const record = searchCampaignRecords.records(lookup)[0];
    if (record === undefined) continue;
    if (!holdsMessage(record, message)) return { kind: 'send' };
    return {
      kind: 'in-place',
      outcome: {
        category: 'success',
        code: 'ALREADY_APPLIED',
        message: `record "${message.clientId}" in "${message.campaignName}" already holds this data; not sent again`,
        attempts: lookup.attempts,
      },
    };
  }
  return { kind: 'send' };
};

/** Fields an add-or-update sets besides its data, from the message. */
const upsertScalars = (message: AddOrUpdateCampaignRecordMessage) => {
  const itemValue = (key: string): string | undefined =>
    message.previewRecordData.find((item) => item.key === key)?.value;
  const skillQueue = itemValue(SKILL_QUEUE_KEY);
  const timeZone = itemValue(ITEM_TIME_ZONE_KEY);
  return {
    ...(message.preferredAgent === undefined ? {} : { agent: message.preferredAgent || null }),
    ...(message.nextEarliestWorkTimeUTC === undefined
      ? {}
      : { nextWork: message.nextEarliestWorkTimeUTC }),
    ...(skillQueue === undefined ? {} : { skillQueue }),
    ...(timeZone === undefined ? {} : { timeZone }),
  };
};

export const addOrUpdateCampaignRecord: Action<
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
  execute: async (message, platform, call) => {
    // Repeating an add whose answer was lost is not harmless: the platform takes the repeat for
    // an update, and an update replaces all data, dropping the clientId item the add stored
    // (realtime spec, add-or-update rule 1). So before repeating, look whether the record
    // already holds what this message asks for.
    const { redelivered, ...options } = call;
    // Once a lookup got no answer (the platform is down, say), retries go out unchecked: in an
    // outage a lookup before every retry would only multiply the failing requests.
    let lookupAnswered = true;
    const inPlace = async (): Promise<Outcome | undefined> => {
      const found = await lookUpRecord(message, platform, options);
      lookupAnswered = found.kind !== 'unknown';
      return found.kind === 'in-place' ? found.outcome : undefined;
    };
    if (redelivered === true) {
      const done = await inPlace();
      if (done) return done;
    }
    // The retries are this loop's: the caller hands back a failure that may have been applied,
    // and the lookup decides whether to send again.
    let attemptsLeft = platform.maxAttempts;
    let requests = 0;
    // An unanswered attempt that no lookup cleared: a later plain failure leaves it in doubt.
    let doubt = false;
    for (;;) {
      const outcome = await platform.send(addOrUpdateCampaignRecord, message, {
        ...options,
        maxAttempts: attemptsLeft,
        stopAtDoubt: lookupAnswered,
      });
      requests += outcome.attempts;
      attemptsLeft -= Math.max(1, outcome.attempts);
      const settled = { ...outcome, attempts: requests, ...(doubt ? { afterDoubt: true } : {}) };
      if (!lookupAnswered || outcome.category !== 'retryable' || !mayHaveBeenApplied(outcome)) {
        return settled;
      }
      if (attemptsLeft <= 0) return settled;
      const done = await inPlace();
      if (done) return done;
      doubt = !lookupAnswered;
      // The lookup took time of its own: the retry must still end before the deadline.
      if (!platform.mayStartRequest(options.deadline)) return settled;
    }
  },
  ordering: readdressed<AddOrUpdateCampaignRecordMessage>({
    kind: 'create',
    location: recordKey,
    sets: (message) => ({
      data: payloadHash({ items: message.previewRecordData }),
      ...upsertScalars(message),
    }),
    apply: async (message, decision, platform, call) => {
      const where = message;
      const scalars = upsertScalars(message);
      if (decision.entity === 'present' && decision.stale.includes('data')) {
        // Newer data is on the platform; only some of this event's other fields are fresh.
        const fresh = { ...pickFields(scalars, decision.fresh), ...decision.restore };
        return stepResult(await setFields(where, asRecordFields(fresh), platform, call));
      }
      const sent = await addOrUpdateCampaignRecord.execute(
        withoutStale(message, decision),
        platform,
        { ...call, redelivered: decision.ourEarlierAttempt },
      );
      if (sent.category !== 'success') return stepResult(sent);
      // The data items SkillQueue / ItemTimeZone set fields that newer events may own, and
      // fields waiting in limbo come back with this create: set them after the data.
      const impliedStale = decision.stale.filter((f) => f === 'skillQueue' || f === 'timeZone');
      const after = {
        ...pickFields(decision.current, impliedStale),
        ...(decision.restore ?? {}),
      };
      if (Object.keys(after).length === 0) return stepResult(sent);
      const created = decision.entity !== 'present';
      const fields = asRecordFields(after);
      const outcome = await setFields(
        where,
        created && fields.state === undefined ? { state: 'NOTWORKED', ...fields } : fields,
        platform,
        call,
      );
      // The data is in place either way; a failed follow-up makes the whole event retry.
      return outcome.category === 'success'
        ? stepResult(sent)
        : stepResult(outcome, { kind: 'uncertain' });
    },
  }),
};
