import { addOrUpdateCampaignRecord } from '../../../actions/add-or-update-campaign-record';
import { agentValue } from '../../../core/platform/platform-responses';
import { ITEM_TIME_ZONE_KEY, SKILL_QUEUE_KEY } from '../../../messages/rules';
import { knownAfterWrite } from '../known';
import {
  CREATED_DEFAULTS,
  type FieldValue,
  type RecordOp,
  type RecordOrigin,
  recordAt,
} from '../model';
import {
  answer,
  fieldsAt,
  type RecordOperation,
  recordIn,
  type WriteStep,
  writeCall,
} from '../operation';
import { type DataItem, dataHash } from '../record-data';

/**
 * add-or-update-campaign-record: updates the record the campaign holds, or adds one (spec, rule
 * 1). Its step sends the data of the event it names, with the preferred agent and next work time
 * when given.
 */

const itemValue = (items: readonly DataItem[], key: string): string | undefined =>
  items.find((item) => item.key === key)?.value;

/** Each op's fields, once: a message replays its entity several times, hashing the data each time. */
const setsOf = new WeakMap<object, Readonly<Record<string, FieldValue>>>();

/** The fields an add-or-update sets on a record that is there (absent optional ones keep theirs). */
export const upsertSets = (
  op: Extract<RecordOp, { kind: 'upsert' }>,
): Readonly<Record<string, FieldValue>> => {
  const known = setsOf.get(op);
  if (known !== undefined) return known;
  const sets = upsertSetsOf(op);
  setsOf.set(op, sets);
  return sets;
};

const upsertSetsOf = (op: Extract<RecordOp, { kind: 'upsert' }>): Record<string, FieldValue> => {
  const skillQueue = itemValue(op.items, SKILL_QUEUE_KEY);
  const timeZone = itemValue(op.items, ITEM_TIME_ZONE_KEY);
  return {
    data: dataHash(op.items),
    ...(op.agent === undefined ? {} : { agent: agentValue(op.agent) }),
    ...(op.nextWork === undefined ? {} : { nextWork: op.nextWork }),
    ...(skillQueue === undefined ? {} : { skillQueue }),
    ...(timeZone === undefined ? {} : { timeZone }),
  };
};

const after = (step: WriteStep<'upsert'>) => ({ [step.campaign]: step.place });

export const upsert: RecordOperation<'upsert'> = {
  apply: (places, v, op) => {
    const here = recordAt(places.get(op.campaign));
    const sets = upsertSets(op);
    // An add-or-update updates the record the campaign holds, or adds one (spec, rule 1).
    const fields = here
      ? { ...here.fields, ...fieldsAt(v, sets) }
      : fieldsAt(v, { ...CREATED_DEFAULTS, ...sets });
    const origin: RecordOrigin = here?.origin ?? { kind: 'ours', born: v };
    places.set(op.campaign, { record: { origin, at: v, fields } });
    return { kind: 'applied' };
  },

  /** add-or-update with the data of the event the step names. */
  run: async (step, { id, events, platform, call }) => {
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
      writeCall(call),
    );
    return answer(outcome);
  },

  touched: (step) => [step.campaign],

  sent: (step) => [
    'data',
    ...(step.agent === undefined ? [] : (['agent'] as const)),
    ...(step.nextWork === undefined ? [] : (['nextWork'] as const)),
  ],

  after,

  learn: (known, step) => knownAfterWrite(known, [step.campaign], after(step)),

  alreadyCode: () => 'ALREADY_APPLIED',
};
