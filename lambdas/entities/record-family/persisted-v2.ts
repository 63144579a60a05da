import * as z from 'zod/mini';
import { eventRankOf } from '../../core/ledger/event-version';
import type { KnownFamily, KnownPlace } from './known';
import { type FamilyState, type Gone, type Place, RECORD_FIELDS, type RecordState } from './model';
import { knownPlaceOf, versionedField } from './persisted-shapes';

/**
 * A record family's parts of a ledger item of version 2, read and converted to this version's
 * shape. Version 2 said with empty versions what version 3 names: a record `born: ''` was made
 * outside the integration, `at: ''` meant no event put it where it is, and `gone: ''` meant
 * nothing keeps a record out (`outside: true` marked one removed outside). A `gone` version was
 * the transfer or delete that emptied the campaign (a transfer's destination was not kept), or
 * the version of the record the ledger removed to add it afresh (nothing keeps one out there).
 * Field versions and `written`/`fresh` are as they were. Items live 400 days, so this stays until none of version 2 can be left.
 */

const record = z.object({
  born: z.string(),
  at: z.string(),
  fields: z.partialRecord(z.enum(RECORD_FIELDS), versionedField),
});
const place = z.union([
  z.object({ record }),
  z.object({ gone: z.string(), outside: z.optional(z.literal(true)) }),
]);
type PlaceV2 = z.output<typeof place>;

const knownPlace = knownPlaceOf(place);

const goneOf = (v: string, outside: boolean): Gone => {
  if (v === '') return { by: 'nothing' };
  if (outside) return { by: 'outside', after: v };
  const kind = eventRankOf(v);
  return kind === 'delete'
    ? { by: 'delete', v }
    : kind === 'transfer'
      ? { by: 'transfer', v, to: null }
      : { by: 'nothing' };
};

const recordOf = ({ born, at, fields }: z.output<typeof record>): RecordState => ({
  origin: born === '' ? { kind: 'outside' } : { kind: 'ours', born },
  ...(at === '' ? {} : { at }),
  fields,
});

const placeOf = (p: PlaceV2): Place =>
  'record' in p ? { record: recordOf(p.record) } : { gone: goneOf(p.gone, p.outside === true) };

const knownPlaceFrom = (p: z.output<typeof knownPlace>): KnownPlace => {
  if (!('unsure' in p)) return placeOf(p);
  const { before, after, sent } = p.unsure;
  return {
    unsure: {
      ...(before === undefined ? {} : { before: placeOf(before) }),
      ...(after === undefined ? {} : { after: placeOf(after) }),
      sent,
    },
  };
};

const mapValues = <A, B>(map: Record<string, A>, f: (a: A) => B): Record<string, B> =>
  Object.fromEntries(Object.entries(map).map(([key, a]) => [key, f(a)]));

/** A version 2 snapshot's state, as version 3 has it. */
export const STATE_FROM_V2 = z.pipe(
  z.record(z.string(), place),
  z.transform((state): FamilyState => mapValues(state, placeOf)),
);

/** What a version 2 item knew of the platform, as version 3 has it. */
export const KNOWN_FROM_V2 = z.pipe(
  z.object({
    places: z.record(z.string(), knownPlace),
    base: z.record(z.string(), place),
    written: z.array(z.string()),
    fresh: z.optional(z.array(z.string())),
  }),
  z.transform(
    ({ places, base, written, fresh }): KnownFamily => ({
      places: mapValues(places, knownPlaceFrom),
      base: mapValues(base, placeOf),
      written,
      ...(fresh === undefined ? {} : { fresh }),
    }),
  ),
);
