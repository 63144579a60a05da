import { isPlatformVersion, NO_EVENT, type Version } from '../../core/ledger/event-version';
import { ITEM_TIME_ZONE_KEY, SKILL_QUEUE_KEY } from '../../messages/rules';
import { isUnsure, type KnownFamily, type KnownPlace, surePlace } from './known';
import {
  bornOf,
  CREATED_DEFAULTS,
  type FamilyState,
  type FieldValue,
  type Gone,
  goneAt,
  type Place,
  RECORD_FIELDS,
  type RecordEvent,
  type RecordField,
  type RecordFields,
  type RecordState,
  recordAt,
  type Versioned,
} from './model';
import { upsertSets } from './operations/upsert';

/**
 * How the platform gets from what the ledger knows of a family to what its replay wants: one
 * function, `familySteps`. Every step says which call it makes and what the ledger will know
 * once it is answered (`place`), so learning from an answer needs no rule of its own.
 */

/** Fields a status change can set (its state is required: kept as it is when not given). */
export type SetFields = Partial<
  Record<'state' | 'agent' | 'skillQueue' | 'nextWork' | 'timeZone', FieldValue>
>;

export type RecordStep =
  /** Search by clientId: settles a doubt, or finds what a campaign held before the ledger wrote there. */
  | { readonly kind: 'read'; readonly campaign: string }
  /** add-or-update: the data of event `dataOf`, and the preferred agent / next work time when given. */
  | {
      readonly kind: 'upsert';
      readonly campaign: string;
      readonly dataOf: Version;
      readonly agent?: string | null;
      readonly nextWork?: number;
      readonly place: Place;
    }
  /** change-status with these fields; without a state, the record's current state is kept. */
  | {
      readonly kind: 'status';
      readonly campaign: string;
      readonly fields: SetFields;
      readonly place: Place;
    }
  /** transfer, with the routing fields due at the destination; `gone`: why `from` is empty then. */
  | {
      readonly kind: 'transfer';
      readonly from: string;
      readonly to: string;
      readonly fields: SetFields;
      readonly place: Place;
      readonly gone: Gone;
    }
  /** delete; `gone`: why the campaign is empty then. */
  | { readonly kind: 'delete'; readonly campaign: string; readonly gone: Gone }
  /** No call: what the ledger knows of a campaign changes (an incarnation recognised). */
  | { readonly kind: 'note'; readonly campaign: string; readonly place: Place }
  /** No call: a record made outside holds the place the replay wants the family's record in. */
  | { readonly kind: 'conflict'; readonly campaign: string };

const SET_FIELDS = ['state', 'agent', 'skillQueue', 'nextWork', 'timeZone'] as const;
const ROUTING = ['agent', 'skillQueue', 'nextWork', 'timeZone'] as const;

/**
 * Fields whose desired version is newer than the one applied: the only ones ever sent, so that
 * what work on the platform changed since stays. A value the ledger applied for a newer event
 * that the replay no longer gives this record (it went to another of the family's records, or
 * had no effect) is not the record's own: it is set back to what the replay wants. A state an
 * agent set (a platform version) is never set back by an older event.
 */
const dueFields = (desired: RecordState, known: RecordState | undefined): RecordField[] =>
  RECORD_FIELDS.filter((name) => {
    const want = desired.fields[name];
    if (want === undefined) return false;
    const have = known?.fields[name];
    const applied = have?.v ?? NO_EVENT;
    return (
      want.v > applied ||
      (want.v < applied && !isPlatformVersion(applied) && want.value !== (have?.value ?? null))
    );
  });

/**
 * A field the API cannot set back: a next work time or the campaign's default queue or zone
 * (null). It is taken as set: no request can do better, and the ledger stops asking.
 */
const unsendable = (name: RecordField, value: FieldValue): boolean =>
  value === null && name !== 'agent' && name !== 'state' && name !== 'data';

const withFields = (record: RecordState, fields: RecordFields): RecordState => ({
  ...record,
  fields: { ...record.fields, ...fields },
});

const pick = (record: RecordState, names: readonly RecordField[]): RecordFields =>
  Object.fromEntries(
    names.flatMap((name) => {
      const field = record.fields[name];
      return field === undefined ? [] : [[name, field]];
    }),
  );

const valuesOf = (fields: RecordFields, names: readonly string[]): SetFields =>
  Object.fromEntries(
    Object.entries(fields)
      .filter(([name]) => names.includes(name))
      .map(([name, field]) => [name, (field as Versioned).value]),
  );

/** The upsert event whose items the record's data field came from. */
const dataEvent = (events: readonly RecordEvent[], v: Version) =>
  events.find((event) => event.v === v && event.op.kind === 'upsert');

/**
 * The record an add leaves: the sent values, the rest as a new record starts (or as the sent
 * items set queue and zone). Each field counts as applied where it equals what the replay wants.
 */
const created = (
  desired: RecordState,
  items: readonly { key: string; value: string }[],
): RecordState => {
  const item = (key: string) => items.find((i) => i.key === key)?.value ?? null;
  const platform: Record<RecordField, FieldValue> = {
    ...CREATED_DEFAULTS,
    data: desired.fields.data?.value ?? null,
    agent: desired.fields.agent?.value ?? null,
    nextWork: desired.fields.nextWork?.value ?? null,
    skillQueue: item(SKILL_QUEUE_KEY),
    timeZone: item(ITEM_TIME_ZONE_KEY),
  };
  const fields = Object.fromEntries(
    RECORD_FIELDS.map((name) => {
      const want = desired.fields[name];
      const value = platform[name];
      return [name, { v: want !== undefined && want.value === value ? want.v : NO_EVENT, value }];
    }),
  ) as RecordFields;
  return withAt({ origin: desired.origin, fields }, desired.at);
};

/**
 * The calls that bring a campaign's record from `known` to `desired` (same incarnation): one
 * add-or-update when the data is due (it carries agent and next work time too), one status change
 * for what is left. Queue and zone that the sent items set count as set by the data's event.
 */
const updates = (
  campaign: string,
  desired: RecordState,
  known: RecordState,
  events: readonly RecordEvent[],
): RecordStep[] => {
  const steps: RecordStep[] = [];
  let record = withAt(rebound(known, desired, events), newer(desired.at, known.at));
  let due = dueFields(desired, record);
  const data = desired.fields.data;
  if (due.includes('data') && data !== undefined) {
    const event = dataEvent(events, data.v);
    if (event?.op.kind === 'upsert') {
      const { items } = event.op;
      const item = (key: string) => items.find((i) => i.key === key)?.value;
      const carried = due.filter(
        (name) =>
          name === 'agent' || (name === 'nextWork' && desired.fields.nextWork?.value !== null),
      );
      const implied: RecordFields = {
        ...(item(SKILL_QUEUE_KEY) === undefined
          ? {}
          : { skillQueue: { v: data.v, value: item(SKILL_QUEUE_KEY) ?? null } }),
        ...(item(ITEM_TIME_ZONE_KEY) === undefined
          ? {}
          : { timeZone: { v: data.v, value: item(ITEM_TIME_ZONE_KEY) ?? null } }),
      };
      record = withFields(record, { ...implied, ...pick(desired, ['data', ...carried]) });
      const agent = carried.includes('agent') ? desired.fields.agent?.value : undefined;
      const nextWork = carried.includes('nextWork') ? desired.fields.nextWork?.value : undefined;
      steps.push({
        kind: 'upsert',
        campaign,
        dataOf: data.v,
        ...(agent === undefined ? {} : { agent: agent as string | null }),
        ...(typeof nextWork === 'number' ? { nextWork } : {}),
        place: { record },
      });
      due = dueFields(desired, record);
    }
  }
  const settable = due.filter((name): name is (typeof SET_FIELDS)[number] => name !== 'data');
  const sendable = settable.filter(
    (name) => !unsendable(name, desired.fields[name]?.value ?? null),
  );
  if (sendable.length > 0) {
    record = withFields(record, pick(desired, settable));
    steps.push({
      kind: 'status',
      campaign,
      fields: valuesOf(desired.fields, sendable),
      place: { record },
    });
  } else if (
    steps.length === 0 &&
    (settable.length > 0 || bornOf(record) !== bornOf(known) || record.at !== known.at)
  ) {
    // Nothing to send, but the ledger now knows more (an incarnation recognised, a default taken as set).
    steps.push({
      kind: 'note',
      campaign,
      place: { record: withFields(record, pick(desired, settable)) },
    });
  }
  return steps;
};

/**
 * The platform's record recognised as the replay's incarnation `born` (one the ledger added
 * before it knew of an older create). The values its add gave it by default count as applied
 * only where they are what the replay wants: in the replay that add was an update, and older
 * events may have set those fields.
 */
const rebound = (
  known: RecordState,
  desired: RecordState,
  events: readonly RecordEvent[],
): RecordState => {
  const born = bornOf(known);
  if (born === bornOf(desired)) return known;
  const add = events.find((event) => event.v === born && event.op.kind === 'upsert');
  const setByAdd = new Set(add?.op.kind === 'upsert' ? Object.keys(upsertSets(add.op)) : []);
  const fields = Object.fromEntries(
    Object.entries(known.fields).map(([name, field]) => {
      if (field.v !== born || setByAdd.has(name)) return [name, field];
      const want = desired.fields[name as RecordField];
      return [
        name,
        { ...field, v: want !== undefined && want.value === field.value ? want.v : NO_EVENT },
      ];
    }),
  ) as RecordFields;
  return { ...known, origin: desired.origin, fields };
};

/** The newer of two versions of the event that put a record here (absent: none did). */
const newer = (a: Version | undefined, b: Version | undefined): Version | undefined =>
  a === undefined ? b : b === undefined || a > b ? a : b;

const withAt = (record: RecordState, at: Version | undefined): RecordState => {
  const { at: _, ...rest } = record;
  return at === undefined ? rest : { ...rest, at };
};

/** Nothing keeps a record out of a campaign the steps empty to make room or to add anew. */
const NOTHING: Gone = { by: 'nothing' };

const isIncarnation = (record: RecordState | undefined, born: Version): boolean =>
  record !== undefined && bornOf(record) === born;

const isFree = (place: Place | undefined): boolean => place === undefined || 'gone' in place;

/**
 * The campaigns to read before anything is decided: those in doubt after an unanswered call,
 * and those first met through a status change or transfer (whether a record made outside the
 * integration is there decides what the event does; an add or a delete does not need to know).
 */
const readsFirst = (known: KnownFamily, events: readonly RecordEvent[]): string[] => {
  const reads = new Set(Object.keys(known.places).filter((c) => isUnsure(known.places[c])));
  const seen = new Set<string>();
  for (const { op } of events) {
    const first = !seen.has(op.campaign);
    if (
      first &&
      (op.kind === 'status' || op.kind === 'transfer') &&
      known.base[op.campaign] === undefined &&
      !known.written.includes(op.campaign)
    ) {
      reads.add(op.campaign);
    }
    seen.add(op.campaign);
    if (op.kind === 'transfer') seen.add(op.to);
  }
  return [...reads].sort();
};

/**
 * Adding the replay's record at `c` where there is none: one add-or-update with the data of the
 * event that set it (and the agent and next work time it wants), then what the add cannot set.
 * Undefined when that data is not kept (no call could add it right).
 */
const creation = (
  c: string,
  want: RecordState,
  events: readonly RecordEvent[],
): RecordStep[] | undefined => {
  const data = want.fields.data;
  const event = data === undefined ? undefined : dataEvent(events, data.v);
  if (data === undefined || event?.op.kind !== 'upsert') return undefined;
  const added = created(want, event.op.items);
  const agent = want.fields.agent?.value;
  const nextWork = want.fields.nextWork?.value;
  return [
    {
      kind: 'upsert',
      campaign: c,
      dataOf: data.v,
      ...(agent === null || agent === undefined ? {} : { agent: agent as string }),
      ...(typeof nextWork === 'number' ? { nextWork } : {}),
      place: { record: added },
    },
    ...updates(c, want, added, events),
  ];
};

/** A due field the API cannot set back (a default) holds another value on the platform. */
const stuck = (want: RecordState, here: RecordState): boolean =>
  dueFields(want, here).some(
    (name) =>
      unsendable(name, want.fields[name]?.value ?? null) &&
      (here.fields[name]?.value ?? null) !== null,
  );

/**
 * The family while its steps are worked out: what the platform holds campaign by campaign as the
 * steps so far leave it, and the steps. Records are matched by incarnation (the create that made
 * them).
 */
interface Matching {
  readonly desired: FamilyState;
  readonly platform: Map<string, Place | undefined>;
  readonly steps: RecordStep[];
  /** The campaign the replay wants each of its incarnations in. */
  readonly desiredAt: ReadonlyMap<Version, string>;
  /** The incarnations the ledger knew on the platform before any step. */
  readonly knownBorn: ReadonlySet<Version>;
}

const matching = (desired: FamilyState, known: KnownFamily): Matching => {
  const platform = new Map<string, Place | undefined>(
    Object.entries(known.places).map(([c, p]) => [c, surePlace(p as KnownPlace)]),
  );
  const desiredAt = new Map(
    Object.entries(desired).flatMap(([c, p]) => {
      const record = recordAt(p);
      return record === undefined ? [] : [[bornOf(record), c] as const];
    }),
  );
  const knownBorn = new Set(
    [...platform.values()].flatMap((p) => {
      const r = recordAt(p);
      return r === undefined ? [] : [bornOf(r)];
    }),
  );
  return { desired, platform, steps: [], desiredAt, knownBorn };
};

const recordOn = (m: Matching, c: string) => recordAt(m.platform.get(c));

/**
 * The replay's incarnation the platform's record in `c` is. It is the replay's when the replay
 * has no other record for it: one the ledger added before it knew of an older create (younger),
 * or one found made outside.
 */
const incarnation = (m: Matching, c: string): Version | undefined => {
  const here = recordOn(m, c);
  if (here === undefined) return undefined;
  const born = bornOf(here);
  if (m.desiredAt.has(born)) return born;
  const want = recordAt(m.desired[c]);
  if (
    want !== undefined &&
    !m.knownBorn.has(bornOf(want)) &&
    (here.origin.kind === 'outside' || bornOf(want) < born)
  ) {
    return bornOf(want);
  }
  return undefined;
};

/** Where the replay wants the record in `c`, when that is another campaign. */
const misplaced = (m: Matching, c: string): string | undefined => {
  const born = incarnation(m, c);
  const target = born === undefined ? undefined : m.desiredAt.get(born);
  return target === c ? undefined : target;
};

/**
 * Two records that must trade places cannot both move: the first is removed, and added again
 * where it belongs from the data its events carry.
 */
const breakOneSwap = (m: Matching): void => {
  const swap = [...m.platform.keys()].sort().find((c) => {
    const target = misplaced(m, c);
    return target !== undefined && recordOn(m, c) !== undefined && misplaced(m, target) === c;
  });
  if (swap === undefined) return;
  // Removed to be added again where it belongs: nothing keeps a record out of it.
  const gone = goneAt(m.desired[swap]) ?? NOTHING;
  m.steps.push({ kind: 'delete', campaign: swap, gone });
  m.platform.set(swap, { gone });
};

/** The record in `c` moves to `target`, taking the routing fields due there. */
const move = (m: Matching, c: string, here: RecordState, target: string): void => {
  const want = recordAt(m.desired[target]) as RecordState;
  const routing = dueFields(want, here).filter(
    (name): name is (typeof ROUTING)[number] =>
      (ROUTING as readonly string[]).includes(name) &&
      !unsendable(name, want.fields[name]?.value ?? null),
  );
  const moved = withFields(withAt(here, want.at), pick(want, routing));
  // Vacated for the replay's record there, if any: nothing keeps that one out.
  const gone = goneAt(m.desired[c]) ?? NOTHING;
  m.steps.push({
    kind: 'transfer',
    from: c,
    to: target,
    fields: valuesOf(want.fields, routing),
    place: { record: moved },
    gone,
  });
  m.platform.set(target, { record: moved });
  m.platform.set(c, { gone });
};

/**
 * One pass of moves and removals: a move waits for its destination to be free. Answers whether
 * anything moved or went (another pass may then free a destination).
 */
const movesAndRemovals = (m: Matching): boolean => {
  let progress = false;
  breakOneSwap(m);
  for (const c of [...m.platform.keys()].sort()) {
    const here = recordOn(m, c);
    if (here === undefined) continue;
    const born = incarnation(m, c);
    const target = born === undefined ? undefined : m.desiredAt.get(born);
    if (target === c) continue;
    if (target !== undefined) {
      if (!isFree(m.platform.get(target))) continue;
      move(m, c, here, target);
      progress = true;
      continue;
    }
    // Not wanted anywhere: it goes, unless it was made outside the integration and no event of
    // ours removed it. Removed to make room for the replay's newer record there, nothing keeps
    // that one out.
    const place = m.desired[c];
    if (here.origin.kind === 'outside' && goneAt(place) === undefined) continue;
    const gone = goneAt(place) ?? NOTHING;
    m.steps.push({ kind: 'delete', campaign: c, gone });
    m.platform.set(c, { gone });
    progress = true;
  }
  return progress;
};

/** The steps that bring the replay's record `want` in campaign `c` about, once moves are done. */
const settle = (m: Matching, c: string, want: RecordState, events: readonly RecordEvent[]) => {
  const here = recordOn(m, c);
  if (here !== undefined && incarnation(m, c) === bornOf(want)) {
    const updated = updates(c, want, here, events);
    const adding = stuck(want, here) ? creation(c, want, events) : undefined;
    if (adding === undefined) {
      m.steps.push(...updated);
      return;
    }
    // A field the API cannot set back holds a value the replay does not give this record (one
    // of its family's other records had it): only a record added afresh starts without it.
    m.steps.push({ kind: 'delete', campaign: c, gone: NOTHING }, ...adding);
    return;
  }
  if (here !== undefined) {
    // Its place is taken by a record made outside (a refused move found it there, after the
    // ledger had written to that campaign): refused, as the replay refuses one it foresees,
    // and read again before the next try.
    if (here.origin.kind === 'outside') m.steps.push({ kind: 'conflict', campaign: c });
    // Otherwise by one of ours that could not move away yet: the ledger reads again.
    return;
  }
  if ([...m.platform.values()].some((p) => isIncarnation(recordAt(p), bornOf(want)))) return;
  const gone = goneAt(m.platform.get(c));
  if (gone?.by === 'outside' && gone.after >= (want.at ?? NO_EVENT)) {
    // Removed on the platform, outside the integration, after the newest event that put it
    // here: not undone.
    return;
  }
  const adding = creation(c, want, events);
  if (adding === undefined) return;
  m.steps.push(...adding);
  m.platform.set(c, { record: want });
};

/**
 * A campaign the ledger has never met, named by a delete: the delete is sent, whatever is there
 * (a record made outside goes; none answers NORECORDFOUND).
 */
const deletesWhereUnmet = (m: Matching, known: KnownFamily, events: readonly RecordEvent[]) => {
  const deleted = new Set(events.flatMap(({ op }) => (op.kind === 'delete' ? [op.campaign] : [])));
  for (const [c, place] of Object.entries(m.desired)) {
    if ('gone' in place && !m.platform.has(c) && deleted.has(c) && known.base[c] === undefined) {
      m.steps.push({ kind: 'delete', campaign: c, gone: place.gone });
      m.platform.set(c, place);
    }
  }
};

/**
 * The calls that bring the platform from what the ledger knows of the family to `desired`, in
 * order. Records are matched by incarnation (the create that made them): one the replay has in
 * another campaign is moved there, one it no longer has is removed, one it has nowhere on the
 * platform is added (with the data its events carry). Matched records get only their due fields.
 */
export const familySteps = (
  desired: FamilyState,
  known: KnownFamily,
  events: readonly RecordEvent[],
): RecordStep[] => {
  const reads = readsFirst(known, events);
  if (reads.length > 0) return reads.map((campaign) => ({ kind: 'read', campaign }));
  const m = matching(desired, known);
  while (movesAndRemovals(m));
  for (const [c, place] of Object.entries(desired)) {
    const want = recordAt(place);
    if (want !== undefined) settle(m, c, want, events);
  }
  deletesWhereUnmet(m, known, events);
  return readBeforeState(m.steps, known);
};

/**
 * A state is sent only once the record has been read for this message: an agent may have worked
 * it since the ledger last looked (the read gives the state the agent's time as its version, and
 * an event older than that work then sets nothing). The platform shows that work only to a search.
 */
const readBeforeState = (steps: readonly RecordStep[], known: KnownFamily): RecordStep[] => {
  const at = steps.findIndex(
    (step) =>
      step.kind === 'status' &&
      step.fields.state !== undefined &&
      !(known.fresh ?? []).includes(step.campaign),
  );
  const step = steps[at];
  if (step === undefined || step.kind !== 'status') return [...steps];
  return [...steps.slice(0, at), { kind: 'read', campaign: step.campaign }, ...steps.slice(at)];
};
