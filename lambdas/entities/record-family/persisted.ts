import * as z from 'zod/mini';
import { GONE_REASONS } from '../../core/ledger/gone';
import type { DocParts, Exactly } from '../../core/ledger/ledger-doc';
import type { KnownFamily } from './known';
import { type FamilyId, type FamilyState, RECORD_FIELDS, RECORD_OP, type RecordOp } from './model';
import { knownPlaceOf, versionedField } from './persisted-shapes';
import { KNOWN_FROM_V2, STATE_FROM_V2 } from './persisted-v2';

/**
 * What the ledger persists of a record family, checked when it is read back. Version 3: who made
 * a record and why a campaign is empty are named cases (version 2 said both with empty versions),
 * and a record no event put where it is has no `at`. A transfer's `to` came later within version
 * 3, optional: an item without it reads as "not recorded" (`null`), which is what the code before
 * it knew, and that code drops it unread (`DocParts.schema`), so no bump.
 */

const origin = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ours'), born: z.string() }),
  z.object({ kind: z.literal('outside') }),
]);
const recordState = z.object({
  origin,
  at: z.optional(z.string()),
  fields: z.partialRecord(z.enum(RECORD_FIELDS), versionedField),
});
const gone = z.discriminatedUnion('by', [
  ...GONE_REASONS,
  z.object({
    by: z.literal('transfer'),
    v: z.string(),
    to: z._default(z.nullable(z.string()), null),
  }),
]);
const place = z.union([z.object({ record: recordState }), z.object({ gone })]);

const knownPlace = knownPlaceOf(place);

const id = z.object({ region: z.string(), clientId: z.string() });

const state = z.record(z.string(), place);

const known = z.object({
  places: z.record(z.string(), knownPlace),
  base: z.record(z.string(), place),
  written: z.array(z.string()),
  fresh: z.optional(z.array(z.string())),
});

export const RECORD_FAMILY_PARTS: DocParts<FamilyId, RecordOp, FamilyState, KnownFamily> = {
  // Version 2 since the ledger kept one version for every kind (items of version 1 had
  // per-campaign keys); version 3 since a record's origin and a campaign's emptiness are named.
  schema: 3,
  id: id satisfies Exactly<typeof id, FamilyId>,
  op: RECORD_OP,
  state: state satisfies Exactly<typeof state, FamilyState>,
  known: known satisfies Exactly<typeof known, KnownFamily>,
  // Items written before version 3: the same ids and events.
  previous: { schema: 2, id, op: RECORD_OP, state: STATE_FROM_V2, known: KNOWN_FROM_V2 },
};
