import { NO_EVENT, platformVersion, type Version } from '../../core/ledger/event-version';
import {
  type FieldValue,
  NOTHING_THERE,
  type Place,
  RECORD_FIELDS,
  type RecordField,
  type RecordFields,
  type RecordState,
  recordAt,
  type Versioned,
} from './model';

/**
 * What the ledger knows the platform holds for a family: per campaign, the record with the
 * version it last applied to each field (the value is what the platform holds as far as the
 * ledger knows), or that the campaign is empty; or, after a call that got no answer, both
 * candidates until a read settles it.
 */
export interface Unsure {
  /** The place before the unanswered call; undefined when the ledger knew nothing of it. */
  readonly before?: Place;
  /** The place the call meant to leave; undefined for a call that could only fail there. */
  readonly after?: Place;
  /** Fields the call sent (a read tells by them whether it landed). */
  readonly sent: readonly RecordField[];
}

export type KnownPlace = Place | { readonly unsure: Unsure };

export interface KnownFamily {
  readonly places: Readonly<Record<string, KnownPlace>>;
  /**
   * What each campaign held before the ledger's first write there (found by a read, or assumed
   * empty when that write was an add): where the replay starts. Follows what reads find until
   * the ledger writes there.
   */
  readonly base: Readonly<Record<string, Place>>;
  /** Campaigns the ledger has written to: from then on, `base` there stays as it is. */
  readonly written: readonly string[];
  /**
   * Campaigns read while the current message is applied: what an agent did there is known. A
   * state is sent only after such a read (`familySteps`); each message starts without any.
   */
  readonly fresh?: readonly string[];
}

export const UNKNOWN_FAMILY: KnownFamily = { places: {}, base: {}, written: [] };

export const isUnsure = (place: KnownPlace | undefined): place is { readonly unsure: Unsure } =>
  place !== undefined && 'unsure' in place;

export const surePlace = (place: KnownPlace | undefined): Place | undefined =>
  place === undefined || isUnsure(place) ? undefined : place;

/** A record as a read found it: its values, none of them applied by an event the ledger knows. */
export interface Observed {
  readonly values: Partial<Record<RecordField, FieldValue>>;
  /** When an agent last worked the record (`lastAttemptTime`, epoch ms), if ever. */
  readonly workedAt?: number;
}

/**
 * The version a field read back holds: the event's the ledger applied; but what an agent set by
 * working the record after that event is the agent's, as of the time it worked it, so that no
 * event older than that work sets it back, whenever the event arrives: the state, and a next
 * work time found other than the one applied (a callback the agent scheduled).
 */
export const readVersion = (
  name: RecordField,
  applied: Versioned | undefined,
  observed: Observed,
): Version => {
  const v = applied?.v ?? NO_EVENT;
  if (observed.workedAt === undefined) return v;
  const agents =
    name === 'state' ||
    (name === 'nextWork' && (observed.values.nextWork ?? null) !== (applied?.value ?? null));
  const worked = platformVersion(observed.workedAt);
  return agents && worked > v ? worked : v;
};

const withValues = (record: RecordState, observed: Observed): RecordState => ({
  ...record,
  fields: Object.fromEntries(
    RECORD_FIELDS.flatMap((name) => {
      const known = record.fields[name];
      if (!(name in observed.values)) return known === undefined ? [] : [[name, known]];
      return [
        [name, { v: readVersion(name, known, observed), value: observed.values[name] ?? null }],
      ];
    }),
  ) as RecordFields,
});

const foreign = (observed: Observed): RecordState =>
  withValues({ origin: { kind: 'outside' }, fields: {} }, observed);

/**
 * Whether what a read found shows the call landed: the fields it sent hold the values it set.
 * A call that sent nothing a read can see (a time zone alone) counts as landed only when it put
 * the record there; otherwise it is sent again, which is harmless.
 */
const landed = (after: RecordState, observed: Observed, unsure: Unsure): boolean => {
  const visible = unsure.sent.filter((name) => name in observed.values);
  if (visible.length === 0) return recordAt(unsure.before) === undefined;
  return visible.every(
    (name) => (after.fields[name]?.value ?? null) === (observed.values[name] ?? null),
  );
};

/**
 * What the ledger knows of a campaign after a read found `observed` there (a record, or none).
 * A place in doubt is settled by it: the call landed if what it set is there, else it did not.
 * Either way the versions the ledger applied stay with the values read, so a value the platform
 * changed since (an agent's work) is known and still not overwritten by an older event.
 */
export const placeAfterRead = (
  place: KnownPlace | undefined,
  observed: Observed | undefined,
): Place => {
  const unsure = isUnsure(place) ? place.unsure : undefined;
  const before = unsure ? unsure.before : (place as Place | undefined);
  const after = unsure?.after;
  if (observed === undefined) {
    if (after !== undefined && 'gone' in after) return after;
    if (before !== undefined && 'gone' in before) return before;
    // It was there (as far as the ledger knew before the call) and is not: removed outside, and
    // nothing older than what put it there brings it back (nothing keeps one out when no event
    // put it there: a record made outside). A call that meant to add it did not.
    const was = recordAt(before)?.at;
    return was === undefined ? NOTHING_THERE : { gone: { by: 'outside', after: was } };
  }
  const afterRecord = recordAt(after);
  if (afterRecord !== undefined && unsure !== undefined && landed(afterRecord, observed, unsure)) {
    return { record: withValues(afterRecord, observed) };
  }
  const beforeRecord = recordAt(before);
  if (beforeRecord !== undefined) return { record: withValues(beforeRecord, observed) };
  return { record: foreign(observed) };
};

/** What a read found there, as the replay's starting point: a record made outside, or nothing. */
export const asBase = (observed: Observed | undefined): Place =>
  observed === undefined
    ? NOTHING_THERE
    : {
        record: {
          origin: { kind: 'outside' },
          fields: Object.fromEntries(
            Object.entries(observed.values).map(([name, value]) => [name, { v: NO_EVENT, value }]),
          ),
        },
      };

/** The campaigns the ledger has written to, with `campaigns`. */
export const writtenTo = (known: KnownFamily, campaigns: readonly string[]): readonly string[] => [
  ...new Set([...known.written, ...campaigns]),
];

/**
 * What the ledger knows once a write's call to `touched` was answered: each campaign as `after`
 * says. At a campaign's first write, what it held before is `before`: nothing, unless the
 * answer showed a record made outside there.
 */
export const knownAfterWrite = (
  known: KnownFamily,
  touched: readonly string[],
  after: Readonly<Record<string, Place>>,
  before: Place = NOTHING_THERE,
): KnownFamily => {
  const places: Record<string, KnownPlace> = { ...known.places };
  const base = { ...known.base };
  for (const c of touched) {
    if (!known.written.includes(c) && base[c] === undefined) {
      // The first write here: what was there before is what the ledger now knows it held.
      base[c] = before;
    }
    const place = after[c];
    if (place === undefined) continue;
    places[c] = place;
  }
  return { ...known, places, base, written: writtenTo(known, touched) };
};

export const place = (known: KnownFamily, campaign: string): KnownPlace | undefined =>
  known.places[campaign];

export type { Version };
