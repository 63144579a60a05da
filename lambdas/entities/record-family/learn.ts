import type { StepAnswer } from '../../core/ledger/entity-kind';
import { NO_EVENT } from '../../core/ledger/event-version';
import {
  type KnownFamily,
  type KnownPlace,
  type Observed,
  placeAfterRead,
  readVersion,
  surePlace,
} from './known';
import {
  NOTHING_THERE,
  type Place,
  RECORD_FIELDS,
  type RecordField,
  type RecordState,
  recordAt,
} from './model';
import type { RecordStep } from './steps';

/** What a record step's call told the ledger, beyond its status. */
export type RecordFinding =
  /** A read (or a status change's look-up) found the record, with these values. */
  | { readonly kind: 'found'; readonly observed: Observed }
  /** A read found no record in the campaign. */
  | { readonly kind: 'absent' }
  /** The platform answered that the record is not where the step addressed it (NORECORDFOUND). */
  | { readonly kind: 'not-where-addressed' }
  /** A delete removed a record (it did not answer NORECORDFOUND). */
  | { readonly kind: 'removed' }
  /** A refused transfer found its destination holding a record with this clientId. */
  | { readonly kind: 'occupied'; readonly observed: Observed }
  /** Nothing beyond its status: it failed or went unanswered, did what it said, or deleted nothing. */
  | { readonly kind: 'nothing-more' };

export interface RecordAnswer extends StepAnswer {
  readonly finding: RecordFinding;
}

/** The campaigns a step's call may change. */
export const touchedBy = (step: RecordStep): readonly string[] =>
  step.kind === 'transfer' ? [step.from, step.to] : step.kind === 'read' ? [] : [step.campaign];

/** Fields a step sends (a read tells by them whether an unanswered call landed). */
const sentBy = (step: RecordStep): RecordField[] => {
  switch (step.kind) {
    case 'upsert':
      return [
        'data',
        ...(step.agent === undefined ? [] : (['agent'] as const)),
        ...(step.nextWork === undefined ? [] : (['nextWork'] as const)),
      ];
    case 'status':
    case 'transfer':
      return RECORD_FIELDS.filter((name) => name in step.fields);
    default:
      return [];
  }
};

/** Where each campaign a step changes ends when its call is applied. */
const placesAfter = (step: RecordStep): Readonly<Record<string, Place>> => {
  switch (step.kind) {
    case 'transfer':
      return { [step.from]: { gone: step.gone }, [step.to]: step.place };
    case 'delete':
      return { [step.campaign]: { gone: step.gone } };
    case 'read':
    case 'conflict':
      return {};
    default:
      return { [step.campaign]: step.place };
  }
};

/** What a read found there, as the replay's starting point: a record made outside, or nothing. */
const asBase = (observed: Observed | undefined): Place =>
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

const written = (known: KnownFamily, campaigns: readonly string[]): readonly string[] => [
  ...new Set([...known.written, ...campaigns]),
];

/** Values the call did not send, as the look-up before it found them; versions stay. */
const refreshed = (
  record: RecordState,
  observed: Observed,
  sent: readonly RecordField[],
): RecordState => ({
  ...record,
  fields: Object.fromEntries(
    RECORD_FIELDS.flatMap((name) => {
      const field = record.fields[name];
      if (sent.includes(name) || !(name in observed.values))
        return field === undefined ? [] : [[name, field]];
      return [
        [name, { v: readVersion(name, field, observed), value: observed.values[name] ?? null }],
      ];
    }),
  ),
});

/**
 * What the ledger knows of a family after a step's call ended as `answer`. Pure. An answered
 * call leaves what the step said it would; an unanswered one leaves both candidates for a read;
 * a failed one changes nothing, except that a refused move makes its destination worth a look.
 */
export const learnFamily = (
  known: KnownFamily,
  step: RecordStep,
  answer: RecordAnswer,
): KnownFamily => {
  const places: Record<string, KnownPlace> = { ...known.places };
  const base = { ...known.base };
  const { finding } = answer;
  if (step.kind === 'read') {
    if (answer.status !== 'done') return known;
    if (finding.kind !== 'found' && finding.kind !== 'absent') return known;
    const observed = finding.kind === 'found' ? finding.observed : undefined;
    places[step.campaign] = placeAfterRead(known.places[step.campaign], observed);
    // Until the ledger writes there, what a read finds is what the campaign held before it.
    if (!known.written.includes(step.campaign)) base[step.campaign] = asBase(observed);
    const fresh = [...new Set([...(known.fresh ?? []), step.campaign])];
    return { ...known, places, base, fresh };
  }
  const touched = touchedBy(step);
  const after = placesAfter(step);
  if (answer.status === 'uncertain') {
    const sent = sentBy(step);
    for (const c of touched) {
      const before = surePlace(known.places[c]);
      places[c] = {
        unsure: {
          ...(before === undefined ? {} : { before }),
          ...(after[c] === undefined ? {} : { after: after[c] }),
          sent,
        },
      };
    }
    return { ...known, places, base, written: written(known, touched) };
  }
  if (answer.status === 'failed') return known;
  if (step.kind === 'transfer' && finding.kind === 'occupied') {
    // Nothing moved: the destination holds a record the ledger did not know of. Until the ledger
    // writes there, it is what the campaign held before: the replay then refuses the move too.
    places[step.to] = placeAfterRead(known.places[step.to], finding.observed);
    if (!known.written.includes(step.to)) base[step.to] = asBase(finding.observed);
    return { ...known, places, base };
  }
  if (finding.kind === 'not-where-addressed') {
    // NORECORDFOUND: not where the ledger thought; nothing older will bring it back.
    const c = step.kind === 'transfer' ? step.from : touched[0];
    if (c === undefined) return known;
    places[c] = placeAfterRead(known.places[c], undefined);
    if (!known.written.includes(c)) base[c] = NOTHING_THERE;
    return { ...known, places, base };
  }
  if (step.kind === 'note') {
    places[step.campaign] = step.place;
    return { ...known, places };
  }
  for (const c of touched) {
    if (!known.written.includes(c) && base[c] === undefined) {
      // The first write here: what was there before is what the ledger now knows it held. A
      // delete that removed something removed a record made outside; anything else found nothing.
      base[c] =
        step.kind === 'delete' && finding.kind === 'removed'
          ? { record: { origin: { kind: 'outside' }, fields: {} } }
          : NOTHING_THERE;
    }
    const place = after[c];
    if (place === undefined) continue;
    const record = recordAt(place);
    places[c] =
      step.kind === 'status' && record !== undefined && finding.kind === 'found'
        ? { record: refreshed(record, finding.observed, sentBy(step)) }
        : place;
  }
  return {
    ...known,
    places,
    base,
    written: written(known, touched),
    ...(step.kind === 'transfer' ? { fresh: freshAfterMove(known.fresh ?? [], step) } : {}),
  };
};

/**
 * A read vouches for the record it found, not for its campaign: after a move, the destination
 * holds the record the source held, read for this message only if the source was.
 */
const freshAfterMove = (
  fresh: readonly string[],
  move: Extract<RecordStep, { kind: 'transfer' }>,
): string[] => [
  ...fresh.filter((c) => c !== move.to),
  ...(fresh.includes(move.from) ? [move.to] : []),
];
