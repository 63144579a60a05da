import {
  asBase,
  type KnownFamily,
  type KnownPlace,
  placeAfterRead,
  surePlace,
  writtenTo,
} from './known';
import { NOTHING_THERE } from './model';
import type { RecordAnswer } from './operation';
import { operationOf } from './operations';
import type { RecordStep } from './steps';

/**
 * What the ledger knows of a family after a step's call ended as `answer`. Pure. A read's
 * finding, a note, a write that got no answer (both candidates left for a read) or was not
 * where it addressed the record, here; a failed call changes nothing; an answered write
 * teaches what its operation says (`operations/`).
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
  if (step.kind === 'conflict' || answer.status === 'failed') return known;
  if (step.kind === 'note') {
    // No call: what the ledger knows of the campaign changes.
    places[step.campaign] = step.place;
    return { ...known, places };
  }
  const write = operationOf(step.kind);
  const touched = write.touched(step);
  if (answer.status === 'uncertain') {
    const after = write.after(step);
    const sent = write.sent(step);
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
    return { ...known, places, base, written: writtenTo(known, touched) };
  }
  if (finding.kind === 'not-where-addressed') {
    // NORECORDFOUND: not where the ledger thought; nothing older will bring it back.
    const c = touched[0];
    if (c === undefined) return known;
    places[c] = placeAfterRead(known.places[c], undefined);
    if (!known.written.includes(c)) base[c] = NOTHING_THERE;
    return { ...known, places, base };
  }
  return write.learn(known, step, answer);
};
