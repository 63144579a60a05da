import type { StepAnswer } from '../../core/ledger/entity-kind';
import {
  type KnownFamily,
  type KnownPlace,
  type Observed,
  placeAfterRead,
  readVersion,
  surePlace,
} from './known';
import { type Place, RECORD_FIELDS, type RecordField, type RecordState, recordAt } from './model';
import type { RecordStep } from './plan';

/** What a record step's call found besides its outcome. */
export interface RecordAnswer extends StepAnswer {
  /** A read's (or a status change's look-up's) finding: the record's values, or `null` for none. */
  readonly observed?: Observed | null;
  /** The platform answered that the record is not where the step addressed it (NORECORDFOUND). */
  readonly notThere?: boolean;
  /** A delete answered that it removed something (not NORECORDFOUND). */
  readonly removed?: boolean;
  /** A refused move found its destination holding a record with this clientId. */
  readonly occupied?: Observed;
}

/** The campaigns a step's call may change. */
export const touchedBy = (step: RecordStep): readonly string[] =>
  step.kind === 'move' ? [step.from, step.to] : step.kind === 'read' ? [] : [step.campaign];

/** Fields a step sends (a read tells by them whether an unanswered call landed). */
const sentBy = (step: RecordStep): RecordField[] => {
  switch (step.kind) {
    case 'upsert':
      return [
        'data',
        ...(step.agent === undefined ? [] : (['agent'] as const)),
        ...(step.nextWork === undefined ? [] : (['nextWork'] as const)),
      ];
    case 'set':
    case 'move':
      return RECORD_FIELDS.filter((name) => name in step.fields);
    default:
      return [];
  }
};

/** Where each campaign a step changes ends when its call is applied. */
const placesAfter = (step: RecordStep): Readonly<Record<string, Place>> => {
  switch (step.kind) {
    case 'move':
      return { [step.from]: { gone: step.gone }, [step.to]: step.place };
    case 'remove':
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
    ? { gone: '' }
    : {
        record: {
          born: '',
          at: '',
          fields: Object.fromEntries(
            Object.entries(observed.values).map(([name, value]) => [name, { v: '', value }]),
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
  if (step.kind === 'read') {
    if (answer.status !== 'done' || answer.observed === undefined) return known;
    const observed = answer.observed ?? undefined;
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
  if (step.kind === 'move' && answer.occupied !== undefined) {
    // Nothing moved: the destination holds a record the ledger did not know of. Until the ledger
    // writes there, it is what the campaign held before: the replay then refuses the move too.
    places[step.to] = placeAfterRead(known.places[step.to], answer.occupied);
    if (!known.written.includes(step.to)) base[step.to] = asBase(answer.occupied);
    return { ...known, places, base };
  }
  if (answer.notThere === true) {
    // NORECORDFOUND: not where the ledger thought; nothing older will bring it back.
    const c = step.kind === 'move' ? step.from : touched[0];
    if (c === undefined) return known;
    places[c] = placeAfterRead(known.places[c], undefined);
    if (!known.written.includes(c)) base[c] = { gone: '' };
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
        step.kind === 'remove' && answer.removed === true
          ? { record: { born: '', at: '', fields: {} } }
          : { gone: '' };
    }
    const place = after[c];
    if (place === undefined) continue;
    const record = recordAt(place);
    places[c] =
      step.kind === 'set' && record !== undefined && answer.observed
        ? { record: refreshed(record, answer.observed, sentBy(step)) }
        : place;
  }
  return {
    ...known,
    places,
    base,
    written: written(known, touched),
    ...(step.kind === 'move' ? { fresh: freshAfterMove(known.fresh ?? [], step) } : {}),
  };
};

/**
 * A read vouches for the record it found, not for its campaign: after a move, the destination
 * holds the record the source held, read for this message only if the source was.
 */
const freshAfterMove = (
  fresh: readonly string[],
  move: Extract<RecordStep, { kind: 'move' }>,
): string[] => [
  ...fresh.filter((c) => c !== move.to),
  ...(fresh.includes(move.from) ? [move.to] : []),
];
