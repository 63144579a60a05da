import type { EntityDoc } from './entity';

const DUPLICATE = 'DUPLICATE';

/** Only what `settled` still remembers is kept, so the history never outgrows it. */
const remembered = <T>(doc: EntityDoc, map: Readonly<Record<string, T>> | undefined) =>
  Object.fromEntries(Object.entries(map ?? {}).filter(([key]) => doc.settled.includes(key)));

/**
 * The document with the outcome of one settled event noted, for `ops trace`: the first outcome
 * of each event, and a count of the duplicates skipped after it. No extra request: it rides
 * on the commit that settles the event.
 */
export const noteOutcome = (doc: EntityDoc, key: string, code: string): EntityDoc => {
  const outcomes = remembered(doc, doc.outcomes);
  const repeats = remembered(doc, doc.repeats);
  if (code === DUPLICATE && outcomes[key] !== undefined) {
    repeats[key] = (repeats[key] ?? 0) + 1;
  } else if (outcomes[key] === undefined) {
    outcomes[key] = code;
  }
  return {
    ...doc,
    outcomes,
    ...(Object.keys(repeats).length === 0 ? {} : { repeats }),
  };
};
