import { addOrUpdateCampaignRecord } from '../../actions/add-or-update-campaign-record';
import { changeCampaignRecordStatus } from '../../actions/change-campaign-record-status';
import { deleteCampaignRecord } from '../../actions/delete-campaign-record';
import { searchCampaignRecords } from '../../actions/search-campaign-records';
import { transferCampaignRecord } from '../../actions/transfer-campaign-record';
import { type StepContext, stepStatus } from '../../core/ledger/entity-kind';
import { type Outcome, success } from '../../core/pipeline/outcome';
import type { CallOptions, PlatformCaller } from '../../core/platform/platform-caller';
import {
  type CampaignRecord,
  platformTimeMillis,
  type WorkedState,
} from '../../core/platform/platform-responses';
import type { PlatformRegion } from '../../core/platform/regions';
import type { Observed } from './known';
import type { RecordAnswer, RecordFinding } from './learn';
import { type FamilyId, OCCUPIED_TO_DO, type RecordEvent, type RecordOp } from './model';
import { clientIdKeys, heldDataHash } from './record-data';
import type { RecordStep, SetFields } from './steps';

type Context = StepContext<FamilyId, RecordOp>;

/**
 * The record's values as the ledger compares them: its data as the identity of the newest data
 * list of `events` it holds (`heldDataHash`), the rest as read.
 */
export const observedValues = (
  record: CampaignRecord,
  events: readonly RecordEvent[],
): Observed => {
  const upserts = events.flatMap(({ op }) => (op.kind === 'upsert' ? [op] : []));
  return {
    values: {
      data: heldDataHash(
        record,
        upserts.map((op) => op.items),
        clientIdKeys(upserts),
      ),
      state: record.workedState,
      agent: record.preferredAgent || null,
      skillQueue: record.skillQueue,
      nextWork: platformTimeMillis(record.nextEarliestWorkTime) ?? null,
    },
    ...(record.workAttempts === 0 ? {} : { workedAt: platformTimeMillis(record.lastAttemptTime) }),
  };
};

const NOTHING_MORE: RecordFinding = { kind: 'nothing-more' };

const answer = (outcome: Outcome, finding: RecordFinding = NOTHING_MORE): RecordAnswer => ({
  outcome,
  status: stepStatus(outcome),
  finding,
});

const region = (id: FamilyId) => id.region as PlatformRegion;

/** Looks the record up in a campaign: its values, `null` for none, or the look-up's failure. */
const lookUp = async (
  campaign: string,
  { id, events, platform, call }: Context,
): Promise<{ readonly observed: Observed | null } | { readonly failed: Outcome }> => {
  const lookup = await platform.send(
    searchCampaignRecords,
    { campaignName: campaign, region: region(id), clientId: id.clientId },
    call,
  );
  if (lookup.code === 'NORECORDFOUND') return { observed: null };
  if (lookup.category !== 'success') return { failed: lookup };
  const record = searchCampaignRecords.records(lookup)[0];
  if (record === undefined) return { observed: null };
  const observed = observedValues(record, events);
  if (record.workAttempts > 0 && observed.workedAt === undefined) {
    // Without the time of the agent's work, no state could be weighed against it.
    return {
      failed: {
        category: 'retryable',
        code: 'MALFORMED_RESPONSE',
        message: `HTTP 200 but the record's lastAttemptTime is not a CCYY-MM-DD HH:MM:SS.mmm time, though it has ${record.workAttempts} work attempt(s)`,
        attempts: lookup.attempts,
      },
    };
  }
  return { observed };
};

const routingRequest = (fields: SetFields) => ({
  ...(fields.skillQueue === undefined || fields.skillQueue === null
    ? {}
    : { skillQueue: String(fields.skillQueue) }),
  ...(fields.agent === undefined
    ? {}
    : { preferredAgent: fields.agent === null ? '' : String(fields.agent) }),
  ...(typeof fields.nextWork === 'number' ? { nextEarliestWorkTimeUTC: fields.nextWork } : {}),
  ...(fields.timeZone === undefined || fields.timeZone === null
    ? {}
    : { timeZone: String(fields.timeZone) }),
});

/** NORECORDFOUND: an answer, not a failure; the ledger learns the record is not there and takes its steps anew. */
const notThere = (outcome: Outcome): RecordAnswer => ({
  outcome: { ...outcome, category: 'success', code: 'NORECORDFOUND' },
  status: 'done',
  finding: { kind: 'not-where-addressed' },
});

/** A call's answer to a step that addressed the record where the ledger thought it was. */
const answerAt = (outcome: Outcome, finding: RecordFinding = NOTHING_MORE): RecordAnswer =>
  outcome.code === 'NORECORDFOUND' ? notThere(outcome) : answer(outcome, finding);

const failed = (outcome: Outcome): RecordAnswer => ({
  outcome,
  status: 'failed',
  finding: NOTHING_MORE,
});

/**
 * A write stops at its first unanswered attempt, and a read tells next whether it landed: a
 * repeat is not always harmless (an add taken for an update drops the clientId item; a repeated
 * move finds nothing), and a read costs what a blind retry would.
 */
const once = (call: CallOptions): CallOptions => ({ ...call, stopAtDoubt: true });

/** The record in its region, as every request names it. */
const recordIn = (id: FamilyId) => ({ region: region(id), clientId: id.clientId });

type StepOf<K extends RecordStep['kind']> = Extract<RecordStep, { readonly kind: K }>;

/** Sends one step as its platform request and reads what the answer tells the ledger. */
export const runRecordStep = async (step: RecordStep, context: Context): Promise<RecordAnswer> => {
  switch (step.kind) {
    case 'read':
      return read(step, context);
    case 'note':
      return { outcome: success('SUCCESS', 'noted'), status: 'done', finding: NOTHING_MORE };
    case 'conflict':
      return occupiedByOthers(step);
    case 'upsert':
      return upsert(step, context);
    case 'status':
      return set(step, context);
    case 'transfer':
      return transfer(step, context);
    case 'delete':
      return deleteRecord(step, context);
  }
};

const read = async (step: StepOf<'read'>, context: Context): Promise<RecordAnswer> => {
  const found = await lookUp(step.campaign, context);
  if ('failed' in found) return failed(found.failed);
  return {
    outcome: success('SUCCESS', 'looked up'),
    status: 'done',
    finding:
      found.observed === null ? { kind: 'absent' } : { kind: 'found', observed: found.observed },
  };
};

/** No call: the platform would refuse the move, and no retry can change that. */
const occupiedByOthers = (step: StepOf<'conflict'>): RecordAnswer => ({
  outcome: {
    category: 'permanent',
    code: 'TRANSFER_TARGET_OCCUPIED',
    message: `"${step.campaign}" holds a record with this clientId that this integration did not put there, so its record cannot be moved there: ${OCCUPIED_TO_DO}`,
    attempts: 0,
  },
  status: 'failed',
  finding: NOTHING_MORE,
});

/** add-or-update with the data of the event the step names. */
const upsert = async (
  step: StepOf<'upsert'>,
  { id, events, platform, call }: Context,
): Promise<RecordAnswer> => {
  const event = events.find((e) => e.v === step.dataOf && e.op.kind === 'upsert');
  if (event?.op.kind !== 'upsert') throw new Error(`the data of ${step.dataOf} is not kept`);
  const { op } = event;
  const outcome = await platform.send(
    addOrUpdateCampaignRecord,
    {
      campaignName: step.campaign,
      ...recordIn(id),
      ...(op.clientIdFieldName === undefined ? {} : { clientIdFieldName: op.clientIdFieldName }),
      previewRecordData: [...op.items],
      ...(step.agent === undefined ? {} : { preferredAgent: step.agent ?? '' }),
      ...(step.nextWork === undefined ? {} : { nextEarliestWorkTimeUTC: step.nextWork }),
    },
    once(call),
  );
  return answer(outcome);
};

/**
 * change-status. The request needs a state: when the step sets none (or WORKED without a next
 * work time), the record's own, read now, so an agent's work is kept.
 */
const set = async (step: StepOf<'status'>, context: Context): Promise<RecordAnswer> => {
  const { fields } = step;
  const needsRead =
    fields.state === undefined ||
    (fields.state === 'WORKED' && typeof fields.nextWork !== 'number');
  const found = needsRead ? await lookUp(step.campaign, context) : undefined;
  if (found !== undefined && 'failed' in found) return failed(found.failed);
  if (found?.observed === null) return notThere(success('NORECORDFOUND', 'not found'));
  const observed = found?.observed;
  const outcome = await context.platform.send(
    changeCampaignRecordStatus,
    {
      campaignName: step.campaign,
      ...recordIn(context.id),
      previewRecordStateEnum: (fields.state ?? observed?.values.state ?? null) as WorkedState,
      ...routingRequest({
        ...fields,
        nextWork: fields.nextWork ?? observed?.values.nextWork ?? null,
      }),
    },
    once(context.call),
  );
  return answerAt(outcome, observed === undefined ? NOTHING_MORE : { kind: 'found', observed });
};

/**
 * transfer. The platform refuses (FAILED) a move into a campaign that holds this clientId
 * already: look there before trying again, since a retry cannot change that.
 */
const transfer = async (step: StepOf<'transfer'>, context: Context): Promise<RecordAnswer> => {
  const { platform, call } = context;
  const request = {
    campaignName: step.from,
    ...recordIn(context.id),
    transferToCampaign: step.to,
    ...routingRequest(step.fields),
  };
  const first = await platform.send(transferCampaignRecord, request, {
    ...once(call),
    maxAttempts: 1,
  });
  if (first.code !== 'FAILED') return answerAt(first);
  const there = await lookUp(step.to, context);
  if (!('failed' in there) && there.observed !== null) {
    return {
      outcome: first,
      status: 'done',
      finding: { kind: 'occupied', observed: there.observed },
    };
  }
  if (platform.maxAttempts <= 1) return answerAt(first);
  const retried = await platform.send(transferCampaignRecord, request, {
    ...once(call),
    maxAttempts: platform.maxAttempts - 1,
  });
  return answerAt({ ...retried, attempts: retried.attempts + first.attempts });
};

/** delete: a record already gone is ALREADY_ABSENT, and nothing was removed. */
const deleteRecord = async (
  step: StepOf<'delete'>,
  { id, platform, call }: Context,
): Promise<RecordAnswer> => {
  const outcome = await platform.send(
    deleteCampaignRecord,
    { campaignName: step.campaign, ...recordIn(id) },
    once(call),
  );
  if (outcome.code === 'NORECORDFOUND') {
    return {
      outcome: { ...outcome, category: 'success', code: 'ALREADY_ABSENT' },
      status: 'done',
      finding: NOTHING_MORE,
    };
  }
  return answer(outcome, outcome.category === 'success' ? { kind: 'removed' } : NOTHING_MORE);
};

/**
 * The clientId of the record a message names only by previewRecordId, by one search in the
 * campaign it names: undefined when no record there has that id.
 */
export const clientIdOf = async (
  where: {
    readonly campaignName: string;
    readonly region: string;
    readonly previewRecordId: string;
  },
  platform: PlatformCaller,
  call: CallOptions,
): Promise<
  | { readonly clientId: string | undefined; readonly attempts: number }
  | { readonly failed: Outcome }
> => {
  const lookup = await platform.send(
    searchCampaignRecords,
    {
      campaignName: where.campaignName,
      region: where.region as PlatformRegion,
      previewRecordId: where.previewRecordId,
    },
    call,
  );
  if (lookup.code === 'NORECORDFOUND') return { clientId: undefined, attempts: lookup.attempts };
  if (lookup.category !== 'success') return { failed: lookup };
  return {
    clientId: searchCampaignRecords.records(lookup)[0]?.clientId,
    attempts: lookup.attempts,
  };
};
