import * as z from 'zod/mini';
import type { Effect, Replayed, StoredEvent } from '../../core/ledger/entity-kind';
import { NO_EVENT, type Version } from '../../core/ledger/event-version';
import type { Gone as EntityGone } from '../../core/ledger/gone';
import type { Exactly, ReadonlyDeep } from '../../core/ledger/ledger-doc';
import { agentValue, WORKED_STATES } from '../../core/platform/platform-responses';
import { ITEM_TIME_ZONE_KEY, SKILL_QUEUE_KEY } from '../../messages/rules';
import { type DataItem, dataHash } from './record-data';

/**
 * A record family on the platform, as the realtime spec describes it: the records that carry one
 * `clientId` in one region, by campaign. `replayFamily` applies a family's events in version
 * order to that map, each as the platform applies the request (add-or-update, change status,
 * transfer, delete). It is the one statement of the ordering model: the platform must end as
 * this replay ends. Pure: no I/O, no clock.
 */

/** The fields of a record the events set; `data` is a hash of its items (the items live in events). */
export const RECORD_FIELDS = [
  'data',
  'state',
  'agent',
  'nextWork',
  'skillQueue',
  'timeZone',
] as const;
export type RecordField = (typeof RECORD_FIELDS)[number];

/** `null` is "none" (agent, next work time) or "the campaign's default" (skill queue, time zone). */
export type FieldValue = string | number | null;

export interface Versioned {
  /** Version of the event that set the value (`NO_EVENT` for a value found on the platform). */
  readonly v: Version;
  readonly value: FieldValue;
}

export type RecordFields = Partial<Record<RecordField, Versioned>>;

/** Who made a record. */
export type RecordOrigin =
  /** This integration, by the create `born`: the record's incarnation. */
  | { readonly kind: 'ours'; readonly born: Version }
  /** Made outside the integration: found on the platform before any create of ours made it. */
  | { readonly kind: 'outside' };

export interface RecordState {
  readonly origin: RecordOrigin;
  /**
   * The newest event that put the record here or asserted it here (create, update, move in);
   * absent while none has (a record found made outside, changed only by status changes since).
   */
  readonly at?: Version;
  readonly fields: RecordFields;
}

/**
 * Why a campaign holds no record of the family: a reason every kind has (`core/ledger/gone.ts`;
 * here `nothing` also covers a record the ledger removed to add the replay's afresh), or the
 * transfer `v` that moved the record away.
 */
export type Gone = EntityGone | { readonly by: 'transfer'; readonly v: Version };

/** A campaign as the family sees it: its record there, or why it holds none. */
export type Place = { readonly record: RecordState } | { readonly gone: Gone };

/** Empty, and nothing keeps a record out. */
export const NOTHING_THERE: Place = { gone: { by: 'nothing' } };

/** By campaign name. A campaign the family never touched has no entry. */
export type FamilyState = Readonly<Record<string, Place>>;

/** Who a family is on the platform: its clientId in its region. */
export interface FamilyId {
  readonly region: string;
  readonly clientId: string;
}

const dataItem = z.object({
  key: z.string(),
  value: z.string(),
  displayOrder: z.optional(z.number()),
});

/** The optional fields a status change or transfer sets; an empty agent clears the preference. */
const routing = z.object({
  agent: z.optional(z.nullable(z.string())),
  skillQueue: z.optional(z.string()),
  nextWork: z.optional(z.number()),
  timeZone: z.optional(z.string()),
});

/**
 * What one event does to its family, in the platform's terms: the one statement of its shape,
 * for the code (`RecordOp`) and for the ledger items that keep events (`persisted.ts`).
 */
export const RECORD_OP = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('upsert'),
    campaign: z.string(),
    items: z.array(dataItem),
    clientIdFieldName: z.optional(z.string()),
    agent: z.optional(z.nullable(z.string())),
    nextWork: z.optional(z.number()),
  }),
  z.object({
    kind: z.literal('status'),
    campaign: z.string(),
    state: z.enum(WORKED_STATES),
    routing,
  }),
  z.object({ kind: z.literal('transfer'), campaign: z.string(), to: z.string(), routing }),
  z.object({ kind: z.literal('delete'), campaign: z.string() }),
]);

export type RecordOp = ReadonlyDeep<z.output<typeof RECORD_OP>>;
export type Routing = ReadonlyDeep<z.output<typeof routing>>;
dataItem satisfies Exactly<typeof dataItem, DataItem>;

export type RecordEvent = StoredEvent<RecordOp>;

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

/** The values a newly added record starts with besides what its request sets (simulator decisions). */
export const CREATED_DEFAULTS: Readonly<Record<RecordField, FieldValue>> = {
  data: null,
  state: 'NOTWORKED',
  agent: null,
  nextWork: null,
  skillQueue: null,
  timeZone: null,
};

export const routingSets = (routing: Routing): Record<string, FieldValue> => ({
  ...(routing.agent === undefined ? {} : { agent: agentValue(routing.agent) }),
  ...(routing.skillQueue === undefined ? {} : { skillQueue: routing.skillQueue }),
  ...(routing.nextWork === undefined ? {} : { nextWork: routing.nextWork }),
  ...(routing.timeZone === undefined ? {} : { timeZone: routing.timeZone }),
});

const at = (v: Version, values: Record<string, FieldValue>): RecordFields =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { v, value }]));

export const recordAt = (place: Place | undefined): RecordState | undefined =>
  place !== undefined && 'record' in place ? place.record : undefined;

/**
 * A record's incarnation, as records are matched: the create that made it, or `NO_EVENT` for one
 * made outside (older than every create).
 */
export const bornOf = (record: RecordState): Version =>
  record.origin.kind === 'ours' ? record.origin.born : NO_EVENT;

/** Why the campaign is empty, when it is. */
export const goneAt = (place: Place | undefined): Gone | undefined =>
  place !== undefined && 'gone' in place ? place.gone : undefined;

/** What an operator does about a move refused because its destination holds the clientId. */
export const OCCUPIED_TO_DO = 'check both campaigns, then redrive';

const NO_RECORD = (campaign: string): Effect => ({
  kind: 'none',
  code: 'NO_EFFECT',
  reason: `no record with this clientId in "${campaign}" at this event's time (as far as the events known so far say); the event is kept and takes effect if an older event that puts the record there arrives`,
});

/** One event applied to the family, as the platform applies its request. */
const applyOp = (places: Map<string, Place>, v: Version, op: RecordOp): Effect => {
  const here = recordAt(places.get(op.campaign));
  switch (op.kind) {
    case 'upsert': {
      const sets = upsertSets(op);
      // An add-or-update updates the record the campaign holds, or adds one (spec, rule 1).
      const fields = here
        ? { ...here.fields, ...at(v, sets) }
        : at(v, { ...CREATED_DEFAULTS, ...sets });
      const origin: RecordOrigin = here?.origin ?? { kind: 'ours', born: v };
      places.set(op.campaign, { record: { origin, at: v, fields } });
      return { kind: 'applied' };
    }
    case 'status': {
      if (!here) return NO_RECORD(op.campaign);
      const fields = { ...here.fields, ...at(v, { state: op.state, ...routingSets(op.routing) }) };
      places.set(op.campaign, { record: { ...here, fields } });
      return { kind: 'applied' };
    }
    case 'transfer': {
      if (!here) return NO_RECORD(op.campaign);
      if (recordAt(places.get(op.to)) !== undefined) {
        return {
          kind: 'conflict',
          code: 'TRANSFER_TARGET_OCCUPIED',
          reason: `"${op.to}" already holds a record with this clientId, so the platform cannot move the one in "${op.campaign}" there; nothing was moved: ${OCCUPIED_TO_DO}`,
        };
      }
      const fields = { ...here.fields, ...at(v, routingSets(op.routing)) };
      places.set(op.to, { record: { ...here, at: v, fields } });
      places.set(op.campaign, { gone: { by: 'transfer', v } });
      return { kind: 'applied' };
    }
    case 'delete': {
      if (!here) {
        // Deleting what is not there: the campaign is still known to be empty from here on.
        if (places.get(op.campaign) === undefined) {
          places.set(op.campaign, { gone: { by: 'delete', v } });
        }
        return {
          kind: 'none',
          code: 'ALREADY_ABSENT',
          reason: `no record with this clientId in "${op.campaign}" at this event's time; nothing to delete`,
        };
      }
      places.set(op.campaign, { gone: { by: 'delete', v } });
      return { kind: 'applied' };
    }
  }
};

/**
 * The family after its events, applied once each in version order (ties are ordered by the
 * version itself) to `start`: what was on the platform before the ledger's first write there.
 */
export const replayFamily = (
  start: FamilyState,
  events: readonly RecordEvent[],
): Replayed<FamilyState> => {
  const places = new Map(Object.entries(start));
  const effects = new Map<string, Effect>();
  for (const event of events) effects.set(event.key, applyOp(places, event.v, event.op));
  return { state: Object.fromEntries(places), effects };
};
