import * as z from 'zod/mini';
import type { StoredEvent } from '../../core/ledger/entity-kind';
import { NO_EVENT, type Version } from '../../core/ledger/event-version';
import type { Gone as EntityGone } from '../../core/ledger/gone';
import type { Exactly, ReadonlyDeep } from '../../core/ledger/ledger-doc';
import { agentValue, WORKED_STATES } from '../../core/platform/platform-responses';
import type { DataItem } from './record-data';

/**
 * A record family on the platform, as the realtime spec describes it: the records that carry one
 * `clientId` in one region, by campaign. What each op does to that map is its operation's
 * (`operations/`); `replay.ts` applies a family's events in version order. The replay is the one
 * statement of the ordering model: the platform must end as it ends. Pure: no I/O, no clock.
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
 * transfer `v` that moved the record away, to the campaign `to`. In the replay only a transfer
 * sets it, on the campaign it empties; an add there (a new record) or a move back replaces it,
 * and other ops leave it (each op's rule is its own, `operations/`). The item keeps
 * it, in a folded snapshot too (`persisted.ts`). test/unit/entities/record-family-model.test.ts
 * and test/unit/ledger/record-family-items-v3.test.ts hold these.
 */
export type Gone =
  | EntityGone
  | {
      readonly by: 'transfer';
      readonly v: Version;
      /**
       * Where the record went: in the replay, the campaign the transfer named; in what the
       * ledger knows, where the call that moved it put it (a chain of moves sent as one call,
       * A→B→C as A→C, names C). `null`: not recorded, the Gone was written before destinations
       * were kept (an item of schema 3 without it, or of schema 2).
       */
      readonly to: string | null;
    };

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
