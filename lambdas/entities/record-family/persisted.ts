import * as z from 'zod/mini';
import type { DocParts, Exactly } from '../../core/ledger/ledger-doc';
import type { KnownFamily } from './known';
import { type FamilyState, RECORD_FIELDS, RECORD_STATES, type RecordOp } from './model';
import type { FamilyId } from './platform-steps';

/** What the ledger persists of a record family, checked when it is read back. */

const value = z.union([z.string(), z.number(), z.null()]);
const versioned = z.object({ v: z.string(), value });
const recordState = z.object({
  born: z.string(),
  at: z.string(),
  fields: z.partialRecord(z.enum(RECORD_FIELDS), versioned),
});
const place = z.union([
  z.object({ record: recordState }),
  z.object({ gone: z.string(), outside: z.optional(z.literal(true)) }),
]);

const dataItem = z.object({
  key: z.string(),
  value: z.string(),
  displayOrder: z.optional(z.number()),
});
const routing = z.object({
  agent: z.optional(z.nullable(z.string())),
  skillQueue: z.optional(z.string()),
  nextWork: z.optional(z.number()),
  timeZone: z.optional(z.string()),
});

const op = z.discriminatedUnion('kind', [
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
    state: z.enum(RECORD_STATES),
    routing,
  }),
  z.object({ kind: z.literal('transfer'), campaign: z.string(), to: z.string(), routing }),
  z.object({ kind: z.literal('delete'), campaign: z.string() }),
]);

const knownPlace = z.union([
  place,
  z.object({
    unsure: z.object({
      before: z.optional(place),
      after: z.optional(place),
      sent: z.array(z.enum(RECORD_FIELDS)),
    }),
  }),
]);

const id = z.object({ region: z.string(), clientId: z.string() });

const state = z.record(z.string(), place);

const known = z.object({
  places: z.record(z.string(), knownPlace),
  base: z.record(z.string(), place),
  written: z.array(z.string()),
  fresh: z.optional(z.array(z.string())),
});

export const RECORD_FAMILY_PARTS: DocParts<FamilyId, RecordOp, FamilyState, KnownFamily> = {
  // Version 2 since the ledger kept one version for every kind (items of version 1 had per-campaign keys).
  schema: 2,
  id: id satisfies Exactly<typeof id, FamilyId>,
  op: op satisfies Exactly<typeof op, RecordOp>,
  state: state satisfies Exactly<typeof state, FamilyState>,
  known: known satisfies Exactly<typeof known, KnownFamily>,
};
