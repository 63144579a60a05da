import { type EntityDoc, type FieldValue, type OrderedEvent, remember } from './entity';
import { isNewer, type Version } from './event-version';

/**
 * The ordering rules, as pure functions: what to do with an event given what the ledger knows of
 * its entity (`decide`), and what the ledger knows afterwards (`settle`). The model they follow:
 * the platform must end as if every event had been applied once, in version order, to a platform
 * where the entity did not exist yet. Staleness is judged per field, not per entity.
 */

export type Decision =
  | {
      readonly kind: 'skip';
      readonly code: 'STALE_SKIPPED' | 'DUPLICATE';
      readonly reason: string;
    }
  /** The event is older than a move of its entity: apply it where the entity is now. */
  | { readonly kind: 'forward'; readonly location: string }
  | {
      readonly kind: 'apply';
      /** What the ledger says is on the platform at this location now. */
      readonly entity: 'present' | 'absent' | 'unknown';
      /** Fields of the event newer than what the platform holds: send these. */
      readonly fresh: readonly string[];
      /** Fields of the event that newer events already set: leave them out. */
      readonly stale: readonly string[];
      /** The latest known value of every field the ledger holds (to fill a required field). */
      readonly current: Readonly<Record<string, FieldValue>>;
      /** An earlier attempt of this very event may have reached the platform. */
      readonly ourEarlierAttempt: boolean;
      /**
       * A delete that arrives after a later create was applied as an update of the old record: the
       * record must be deleted and created afresh with what the later events set (`keep`).
       */
      readonly recreate?: {
        readonly bornAt: Version;
        readonly keep: Readonly<Record<string, FieldValue>>;
      };
    };

const skip = (code: 'STALE_SKIPPED' | 'DUPLICATE', reason: string): Decision => ({
  kind: 'skip',
  code,
  reason,
});

const currentValues = (doc: EntityDoc): Record<string, FieldValue> =>
  Object.fromEntries(Object.entries(doc.fields).map(([name, entry]) => [name, entry.value]));

export const decide = (
  doc: EntityDoc,
  event: OrderedEvent,
  options: { readonly takenOverFrom?: string } = {},
): Decision => {
  if (doc.settled.includes(event.key)) {
    return skip('DUPLICATE', 'this event was already settled here');
  }
  const v = event.version;
  if (doc.movedTo !== undefined && v < doc.movedTo.v && event.kind !== 'delete') {
    return { kind: 'forward', location: doc.movedTo.location };
  }
  if (doc.movedTo !== undefined && v < doc.movedTo.v && event.kind === 'delete') {
    // A delete addressed to where the entity was before it moved: the move is newer.
    return skip('STALE_SKIPPED', 'the entity moved away after this delete happened');
  }
  const ourEarlierAttempt =
    doc.uncertain.includes(event.key) || options.takenOverFrom === event.key;
  const current = currentValues(doc);
  const names = Object.keys(event.sets);

  if (doc.present === false) {
    if (doc.since !== undefined && v <= doc.since) {
      return skip(
        'STALE_SKIPPED',
        'the entity was deleted or moved away after this event happened',
      );
    }
    return { kind: 'apply', entity: 'absent', fresh: names, stale: [], current, ourEarlierAttempt };
  }
  if (doc.present === undefined) {
    return { kind: 'apply', entity: 'unknown', fresh: names, stale: [], current, ourEarlierAttempt };
  }
  if (doc.bornAt !== undefined && v < doc.bornAt) {
    return skip('STALE_SKIPPED', 'the entity was created afresh after this event happened');
  }
  if (event.kind === 'delete') {
    const later = doc.creates.filter((c) => c > v);
    const bornAt = later[0];
    if (bornAt === undefined) {
      return { kind: 'apply', entity: 'present', fresh: [], stale: [], current, ourEarlierAttempt };
    }
    const keep = Object.fromEntries(
      Object.entries(doc.fields)
        .filter(([, entry]) => entry.v >= bornAt)
        .map(([name, entry]) => [name, entry.value]),
    );
    return {
      kind: 'apply',
      entity: 'present',
      fresh: [],
      stale: [],
      current,
      ourEarlierAttempt,
      recreate: { bornAt, keep },
    };
  }
  const fresh = names.filter((name) => isNewer(v, doc.fields[name]?.v));
  const stale = names.filter((name) => !fresh.includes(name));
  // A create on a present entity is an update; a move always has something to do.
  if (fresh.length === 0 && event.kind !== 'move' && !(event.kind === 'create' && ourEarlierAttempt)) {
    return skip('STALE_SKIPPED', `newer events already set ${stale.join(', ') || 'everything'}`);
  }
  return { kind: 'apply', entity: 'present', fresh, stale, current, ourEarlierAttempt };
};

/** What the platform call of an applied event ended as, for the ledger. */
export type Applied =
  /** The platform holds the event's fresh fields now. */
  | { readonly kind: 'applied'; readonly created?: boolean; readonly ours?: boolean }
  /** The entity is absent (a delete done, or found already gone). */
  | { readonly kind: 'absent' }
  /** The platform said nothing certain: the call may have been applied. */
  | { readonly kind: 'uncertain' }
  /** Nothing changed on the platform (a retry later, or a permanent failure). */
  | { readonly kind: 'unchanged' };

export interface Settled {
  /** The document at the event's location. */
  readonly doc: EntityDoc;
  /** A move: the destination's document after the move (merged with what it knew). */
  readonly destination?: EntityDoc;
}

const fieldsAt = (event: OrderedEvent, names: readonly string[]) =>
  Object.fromEntries(
    names.map((name) => [name, { v: event.version, value: event.sets[name] ?? null }]),
  );

/** The ledger after `event` was decided as `decision` and its platform call ended as `applied`. */
export const settle = (
  doc: EntityDoc,
  event: OrderedEvent,
  decision: Decision,
  applied: Applied,
  destinationDoc?: EntityDoc,
): Settled => {
  const settled = remember(doc.settled, event.key);
  if (decision.kind === 'skip') return { doc: { ...doc, settled } };
  if (decision.kind === 'forward') return { doc };
  const v = event.version;
  switch (applied.kind) {
    case 'uncertain':
      return { doc: { ...doc, uncertain: remember(doc.uncertain, event.key) } };
    case 'unchanged':
      return { doc };
    case 'absent': {
      const { movedTo: _m, bornAt: _b, ours: _o, ...rest } = doc;
      return {
        doc: { ...rest, present: false, since: v, fields: {}, creates: [], settled },
      };
    }
    case 'applied':
      break;
  }
  if (decision.recreate !== undefined) {
    // Deleted and created afresh: what the later events set survives, the rest starts anew.
    const kept = Object.fromEntries(
      Object.entries(doc.fields).filter(([, entry]) => entry.v >= decision.recreate!.bornAt),
    );
    return {
      doc: {
        ...doc,
        present: true,
        since: decision.recreate.bornAt,
        bornAt: decision.recreate.bornAt,
        ours: true,
        fields: kept,
        creates: doc.creates.filter((c) => c >= decision.recreate!.bornAt),
        settled,
      },
    };
  }
  const creating = event.kind === 'create' && decision.entity !== 'present';
  if (event.kind === 'move' && event.destination !== undefined) {
    const base = destinationDoc ?? { fields: {}, creates: [], settled: [], uncertain: [] };
    const moved: EntityDoc = {
      ...base,
      present: true,
      since: v,
      ...(doc.bornAt === undefined ? {} : { bornAt: doc.bornAt }),
      ...(doc.ours === undefined ? {} : { ours: doc.ours }),
      fields: { ...doc.fields, ...fieldsAt(event, decision.fresh), ...newerOnly(base, doc) },
      creates: doc.creates,
      settled: remember(base.settled, event.key),
    };
    const { bornAt: _b, ours: _o, ...rest } = doc;
    return {
      doc: {
        ...rest,
        present: false,
        since: v,
        fields: {},
        creates: [],
        movedTo: { location: event.destination, v },
        settled,
      },
      destination: moved,
    };
  }
  return {
    doc: {
      ...doc,
      present: true,
      ...(creating ? { since: v, bornAt: v, ours: applied.ours ?? true } : {}),
      ...(applied.created === true && !creating ? { ours: applied.ours ?? true } : {}),
      fields: creating
        ? fieldsAt(event, Object.keys(event.sets))
        : { ...doc.fields, ...fieldsAt(event, decision.fresh) },
      creates:
        event.kind === 'create'
          ? creating
            ? [v]
            : [...doc.creates, v].sort().slice(-MAX_CREATES)
          : doc.creates,
      settled,
    },
  };
};

const MAX_CREATES = 20;

/** Fields the destination already holds from events newer than the source's versions. */
const newerOnly = (destination: EntityDoc, source: EntityDoc) =>
  Object.fromEntries(
    Object.entries(destination.fields).filter(([name, entry]) =>
      isNewer(entry.v, source.fields[name]?.v),
    ),
  );
