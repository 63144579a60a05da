import {
  EMPTY_ENTITY,
  type EntityDoc,
  type FieldEntry,
  type FieldValue,
  type OrderedEvent,
  remember,
} from './entity';
import { isNewer, type Version } from './event-version';

/**
 * The ordering rules, as pure functions: what to do with an event given what the ledger knows of
 * its entity (`decide`), and what the ledger knows afterwards (`settle`). They follow one model:
 * the platform must end as if every event had been applied once, in version order, to a platform
 * where the entity did not exist yet. Staleness is judged per field, not per entity.
 */

export type SkipCode = 'STALE_SKIPPED' | 'DUPLICATE';
export type WaitCode = 'WAITING_FOR_CREATE' | 'WAITING_FOR_MOVE';

export type Decision =
  | { readonly kind: 'skip'; readonly code: SkipCode; readonly reason: string }
  /** The event is older than a move of its entity: apply it where the entity is now. */
  | {
      readonly kind: 'forward';
      readonly location: string;
      /** The version of the move it follows. */
      readonly moveAt: Version;
      readonly address?: Readonly<Record<string, string>>;
    }
  /**
   * A change older than the first create seen: in the model it lands only if an older create
   * exists, which may still be on its way. Retried; dead-lettered when the window is spent.
   */
  | { readonly kind: 'wait'; readonly code: WaitCode; readonly reason: string }
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
      /** The present incarnation was created by this integration. */
      readonly ours: boolean;
      /** An earlier attempt of this very event may have reached the platform. */
      readonly ourEarlierAttempt: boolean;
      /** What an earlier attempt left half done (see EntityDoc.pending). */
      readonly pending?: Readonly<Record<string, unknown>>;
      /**
       * A move older than a later move of the record that is already applied: in the model the
       * record went on from where this one took it, so only its fields count, where it is now.
       */
      readonly historic?: true;
      /** A move to where this integration already moved the entity from here. */
      readonly alreadyMovedThere?: true;
      /**
       * A move of an entity an older create of ours made here, or may have made (unanswered):
       * in the model the entity was here when it moved, whatever the platform shows now.
       */
      readonly createdBefore?: true;
      /** The entity moved since the event: address it so instead of as the message does. */
      readonly address?: Readonly<Record<string, string>>;
      /**
       * A move into a place that already holds a later incarnation (an event sent there after
       * the move arrived first): the record there is the moved one. The source record goes, and
       * these fields, newer than what the destination holds, are set there.
       */
      readonly mergeInto?: { readonly fields: Readonly<Record<string, FieldValue>> };
      /**
       * A move into a place where the record was deleted after the move happened: in the model
       * it moved and was deleted there, so it ends absent and the source record simply goes.
       */
      readonly deletedAtDestination?: true;
      /**
       * The destination's ledger shows a create of ours there (perhaps unanswered): a record
       * found there may be that one, not someone else's, so the move waits rather than fails.
       */
      readonly destinationOurs?: true;
      /**
       * A delete that arrives after a later create was applied as an update of the old record: the
       * record must be deleted and created afresh with what the later events set (`keep`).
       */
      readonly recreate?: {
        readonly bornAt: Version;
        readonly keep: Readonly<Record<string, FieldValue>>;
      };
      /** Fields from limbo that this older create brings back: send them too. */
      readonly restore?: Readonly<Record<string, FieldValue>>;
    };

export type ApplyDecision = Extract<Decision, { kind: 'apply' }>;

const skip = (code: SkipCode, reason: string): Decision => ({ kind: 'skip', code, reason });

const currentValues = (doc: EntityDoc): Record<string, FieldValue> =>
  Object.fromEntries(Object.entries(doc.fields).map(([name, entry]) => [name, entry.value]));

export const decide = (
  doc: EntityDoc,
  event: OrderedEvent,
  options: {
    readonly takenOverFrom?: string;
    /** The event followed its record here from where it was addressed (it is older than the move). */
    readonly forwarded?: boolean;
    /**
     * The version of the last move the event followed: it only follows later moves, so a record
     * that came back to a place it left stops the chain where it is now.
     */
    readonly followedMoveAt?: Version;
  } = {},
): Decision => {
  if (doc.settled.includes(event.key)) {
    return skip('DUPLICATE', 'this event was already settled here');
  }
  const v = event.version;
  const followed = options.followedMoveAt;
  if (
    doc.movedTo !== undefined &&
    v < doc.movedTo.v &&
    (followed === undefined || doc.movedTo.v > followed)
  ) {
    // Older than the move: it happened to the record before it left, so it follows the record.
    // A delete too: the record the move took along is the one it deleted, unless a create
    // after the delete made it anew (the destination knows the creates and decides that).
    return {
      kind: 'forward',
      location: doc.movedTo.location,
      moveAt: doc.movedTo.v,
      ...(doc.movedTo.address === undefined ? {} : { address: doc.movedTo.address }),
    };
  }
  if (doc.moving !== undefined && v < doc.moving) {
    // Applied here, it could re-create a record that has left; applied there, it could miss one
    // that stayed. Only the move's own retry can tell, and it is on its way.
    return {
      kind: 'wait',
      code: 'WAITING_FOR_MOVE',
      reason:
        'a later move of the record may or may not have happened; waiting for its retry to settle where the record is',
    };
  }
  if (
    doc.incoming !== undefined &&
    v < doc.incoming &&
    event.kind !== 'create' &&
    options.forwarded !== true
  ) {
    // The same doubt seen from the destination: the record may be here already, but in the
    // model this older event found it not yet here.
    return {
      kind: 'wait',
      code: 'WAITING_FOR_MOVE',
      reason:
        'a later move of the record to here may or may not have happened; waiting for its retry to settle where the record is',
    };
  }
  if (doc.deletedAt !== undefined && v <= doc.deletedAt) {
    return skip('STALE_SKIPPED', 'the entity was deleted or moved away after this event happened');
  }
  if (
    doc.arrivedAt !== undefined &&
    v < doc.arrivedAt &&
    event.kind !== 'create' &&
    options.forwarded !== true
  ) {
    // Addressed here, but older than the move that brought the record: in the model it found
    // no record here. (A same-time tie orders a move after a change, see event-version.)
    return skip('STALE_SKIPPED', 'the record moved here after this event happened');
  }
  const base = {
    current: currentValues(doc),
    ours: doc.ours === true,
    ourEarlierAttempt:
      doc.uncertain.includes(event.attemptKey) || options.takenOverFrom === event.attemptKey,
    ...(doc.pending === undefined ? {} : { pending: doc.pending }),
    ...(event.kind === 'move' && doc.movedTo?.location === event.destination
      ? { alreadyMovedThere: true as const }
      : {}),
    ...(event.kind === 'move' && doc.bornAt !== undefined && doc.bornAt < v
      ? { createdBefore: true as const }
      : {}),
  };
  const names = Object.keys(event.sets);
  const beforeBirth = doc.bornAt !== undefined && v < doc.bornAt;
  if (event.kind !== 'create' && event.kind !== 'delete' && beforeBirth) {
    return {
      kind: 'wait',
      code: 'WAITING_FOR_CREATE',
      reason:
        'the record was created after this change happened; waiting for an older add that may still be on its way',
    };
  }
  if (doc.present !== true) {
    const entity = mayBeHere(doc) ? 'unknown' : 'absent';
    const restore = event.kind === 'create' ? restorable(doc, v) : {};
    return { kind: 'apply', entity, fresh: names, stale: [], ...base, ...restoring(restore) };
  }
  if (event.kind === 'delete') {
    const bornAt = laterBirth(doc, v);
    if (bornAt === undefined) {
      return { kind: 'apply', entity: 'present', fresh: [], stale: [], ...base };
    }
    const fields = Object.entries(doc.fields);
    // Nothing older than the later create is on the platform (or the entity has no fields, as a
    // user, whose existence is all there is): it already is what that create made.
    if (fields.length === 0 || (doc.bornAt === bornAt && fields.every(([, e]) => e.v >= bornAt))) {
      if (doc.incoming !== undefined && doc.incoming < v) {
        // A move here before this delete may have brought the old record, which the later
        // create then only updated: what it left would outlive the delete. The move's retry
        // tells whether it came (its fields are then known here, and the delete re-creates).
        return {
          kind: 'wait',
          code: 'WAITING_FOR_MOVE',
          reason:
            'a move of the record to here before this delete may or may not have happened; waiting for its retry to settle what the record holds',
        };
      }
      return skip('STALE_SKIPPED', 'the entity was created afresh after this delete happened');
    }
    // What the later create and the events after it set survives; what came between the delete
    // and that create waits in limbo for a create between them (see EntityDoc.limbo).
    const keep = Object.fromEntries(
      fields.filter(([, entry]) => entry.v >= bornAt).map(([name, entry]) => [name, entry.value]),
    );
    return {
      kind: 'apply',
      entity: 'present',
      fresh: [],
      stale: [],
      ...base,
      recreate: { bornAt, keep },
    };
  }
  // A create older than the one that made the record is, in the model, the one that made it.
  // What waited in limbo after a create lands with it (and is newer than its own fields): also
  // for one retried after an unanswered attempt, when a later change found the record meanwhile.
  const movesBirth = event.kind === 'create' && doc.bornAt !== undefined && v < doc.bornAt;
  const restore = event.kind === 'create' ? restorable(doc, v) : {};
  const fresh = names.filter((name) => isNewer(v, doc.fields[name]?.v) && !(name in restore));
  const stale = names.filter((name) => !fresh.includes(name));
  const historic = event.kind === 'move' && options.forwarded === true;
  const nothingToSend = fresh.length === 0 && Object.keys(restore).length === 0;
  // A newer create of an entity without fields (a rejoin) asks the platform again: the user may
  // have been removed outside this integration since.
  const rejoin = event.kind === 'create' && names.length === 0 && !movesBirth;
  // Whatever an unanswered earlier attempt of it did, later events have set every field since.
  const overwritten = names.length > 0 && names.every((name) => (doc.fields[name]?.v ?? '') > v);
  if (
    nothingToSend &&
    (event.kind !== 'move' || historic) &&
    !rejoin &&
    (movesBirth || !base.ourEarlierAttempt || overwritten)
  ) {
    return skip('STALE_SKIPPED', `newer events already set ${stale.join(', ') || 'everything'}`);
  }
  return {
    kind: 'apply',
    entity: 'present',
    fresh,
    stale,
    ...base,
    ...(historic ? { historic: true as const } : {}),
    ...restoring(restore),
  };
};

/**
 * The entity may be on the platform here: known present, never known either way, or known gone
 * but with a create of ours since that may have landed unanswered (it set `bornAt`).
 */
const mayBeHere = (doc: EntityDoc): boolean => doc.present !== false || doc.bornAt !== undefined;

/**
 * The first create of the record after version `v`, if any: the earliest known (`bornAt`) when
 * it is later than `v`, even one that went unanswered and may be what made the record (it is in
 * `creates` only once answered); otherwise the first answered create after `v`.
 */
const laterBirth = (doc: EntityDoc, v: Version): Version | undefined =>
  doc.bornAt !== undefined && doc.bornAt > v ? doc.bornAt : doc.creates.find((c) => c > v);

const restoring = (restore: Record<string, FieldValue>) =>
  Object.keys(restore).length === 0 ? {} : { restore };

/** Limbo fields newer than a create at `v`, not overwritten since. */
const restorable = (doc: EntityDoc, v: Version): Record<string, FieldValue> =>
  Object.fromEntries(
    Object.entries(doc.limbo ?? {})
      .filter(([name, entry]) => entry.v > v && isNewer(entry.v, doc.fields[name]?.v))
      .map(([name, entry]) => [name, entry.value]),
  );

/** What the platform call of an applied event ended as, for the ledger. */
export type Applied =
  /** The platform holds the event's fresh fields now. `ours`: we created the entity. */
  | { readonly kind: 'applied'; readonly ours?: boolean }
  /** The entity is absent (a delete done, or found already gone). */
  | { readonly kind: 'absent' }
  /** The platform said nothing certain: the call may have been applied. */
  | { readonly kind: 'uncertain'; readonly pending?: Readonly<Record<string, unknown>> }
  /** Nothing changed on the platform (a retry later, or a permanent failure). */
  | { readonly kind: 'unchanged' }
  /**
   * A move's retry found the entity in neither place: no attempt of it moved anything, so the
   * doubt an unanswered attempt left (`moving`, `incoming`) is settled, and the older events
   * that waited for it go ahead (one of them may be the create the move needs).
   */
  | { readonly kind: 'notMoved' };

export interface Settled {
  /** The document at the event's location. */
  readonly doc: EntityDoc;
  /** A move: the destination's document after the move (merged with what it knew). */
  readonly destination?: EntityDoc;
}

const MAX_CREATES = 20;

const fieldsAt = (event: OrderedEvent, names: readonly string[]) =>
  Object.fromEntries(
    names.map((name) => [name, { v: event.version, value: event.sets[name] ?? null }]),
  );

const withCreate = (creates: readonly Version[], v: Version): Version[] =>
  [...new Set([...creates, v])].sort().slice(-MAX_CREATES);

const latest = (a: Version | undefined, b: Version): Version => (a === undefined || b > a ? b : a);

/** The ledger after `event` was decided as `decision` and its platform call ended as `applied`. */
export const settle = (
  before: EntityDoc,
  event: OrderedEvent,
  decision: Decision,
  applied: Applied,
  destinationDoc?: EntityDoc,
): Settled => {
  let doc = before;
  const settled = remember(doc.settled, event.key);
  const v = event.version;
  if (decision.kind === 'forward' || decision.kind === 'wait') return { doc };
  if (decision.kind === 'skip') {
    if (decision.code === 'DUPLICATE') return { doc };
    if (event.kind === 'delete') {
      // A late delete: what was created before it is gone in the model, later creates remain.
      const bornAt = laterBirth(doc, v);
      return {
        doc: {
          ...doc,
          deletedAt: latest(doc.deletedAt, v),
          ...(bornAt === undefined || doc.present !== true
            ? {}
            : { bornAt, creates: doc.creates.filter((c) => c >= bornAt) }),
          settled,
        },
      };
    }
    const afterDelete = doc.deletedAt === undefined || v > doc.deletedAt;
    if (event.kind === 'create' && afterDelete && doc.present === true) {
      // A create with nothing left to set still happened: a late delete must know of it, and an
      // older one than the create that made the record is, in the model, the one that made it.
      const bornAt = doc.bornAt !== undefined && v < doc.bornAt ? { bornAt: v } : {};
      return { doc: { ...doc, ...bornAt, creates: withCreate(doc.creates, v), settled } };
    }
    return { doc: { ...doc, settled } };
  }
  switch (applied.kind) {
    case 'uncertain':
      return {
        ...(event.kind === 'move' && mayBeHere(doc)
          ? {
              destination: {
                ...(destinationDoc ?? EMPTY_ENTITY),
                incoming: latest(destinationDoc?.incoming, v),
              },
            }
          : {}),
        doc: {
          ...doc,
          // A create that may have landed may have made the record: changes older than it must
          // wait as they would for a create known to have landed.
          ...(event.kind === 'create' && doc.present !== true && isNewer(doc.bornAt ?? '~', v)
            ? { bornAt: v }
            : {}),
          // One older than the create that made a present record may, in the model, have made
          // it: a delete between the two must re-create the record, or what it set stays.
          ...(event.kind === 'create' &&
          doc.present === true &&
          doc.bornAt !== undefined &&
          v < doc.bornAt
            ? { bornAt: v, creates: withCreate(doc.creates, v) }
            : {}),
          uncertain: remember(doc.uncertain, event.attemptKey),
          // Any record that may be here may have left: one an unanswered add of ours put here,
          // or one created outside, as well as one known here. Older events wait for the move's
          // retry, which asks the platform; if it finds the record in neither place it settles
          // the doubt (`notMoved`), so an add the move needs is not held back for long.
          ...(event.kind === 'move' && mayBeHere(doc) ? { moving: latest(doc.moving, v) } : {}),
          ...(applied.pending === undefined ? {} : { pending: applied.pending }),
        },
      };
    case 'unchanged':
      return { doc };
    case 'notMoved':
      return notMoved(doc, event, destinationDoc);
    case 'absent': {
      const { movedTo: _m, bornAt: _b, ours: _o, pending: _p, moving: _mv, ...rest } = doc;
      return {
        // A move that ends with the record gone (deleted at its destination) settles the doubt there too.
        ...(event.kind === 'move' ? withoutIncoming(destinationDoc, v) : {}),
        doc: {
          ...rest,
          present: false,
          deletedAt: latest(doc.deletedAt, v),
          fields: {},
          limbo: newerThan(doc, v),
          creates: [],
          settled,
        },
      };
    }
    case 'applied':
      break;
  }
  // Whatever was left half done is done now; a move that was in doubt has settled.
  const { pending: _done, moving: _moving, ...finished } = doc;
  doc = finished;
  const { recreate } = decision;
  if (recreate !== undefined) {
    // Deleted and created afresh: what the later events set survives, the rest starts anew.
    return {
      doc: {
        ...doc,
        present: true,
        bornAt: recreate.bornAt,
        deletedAt: latest(doc.deletedAt, v),
        ours: true,
        fields: Object.fromEntries(
          Object.entries(doc.fields).filter(([, entry]) => entry.v >= recreate.bornAt),
        ),
        limbo: Object.fromEntries(
          Object.entries(newerThan(doc, v)).filter(([, entry]) => entry.v < recreate.bornAt),
        ),
        creates: doc.creates.filter((c) => c >= recreate.bornAt),
        settled,
      },
    };
  }
  if (event.kind === 'move' && event.destination !== undefined && decision.historic !== true) {
    const { incoming: _arrived, ...base } = destinationDoc ?? EMPTY_ENTITY;
    const moved: EntityDoc = {
      ...base,
      present: true,
      creates:
        base.present === true
          ? [...new Set([...base.creates, ...doc.creates])].sort()
          : doc.creates,
      ...(doc.bornAt === undefined ? {} : { bornAt: doc.bornAt }),
      ...(doc.ours === undefined ? {} : { ours: doc.ours }),
      // The record's history travels with it: a late event older than its last delete is stale there too.
      ...(doc.deletedAt === undefined ? {} : { deletedAt: latest(base.deletedAt, doc.deletedAt) }),
      ...(doc.limbo === undefined ? {} : { limbo: { ...base.limbo, ...doc.limbo } }),
      fields: { ...doc.fields, ...fieldsAt(event, decision.fresh), ...newerOnly(base, doc) },
      arrivedAt: v,
      settled: remember(base.settled, event.key),
    };
    const { bornAt: _b, ours: _o, ...rest } = doc;
    return {
      doc: {
        ...rest,
        present: false,
        fields: {},
        creates: [],
        movedTo: {
          location: event.destination,
          v,
          ...(event.destinationAddress === undefined ? {} : { address: event.destinationAddress }),
        },
        settled,
      },
      destination: moved,
    };
  }
  const creating = event.kind === 'create' && decision.entity !== 'present';
  if (creating) {
    // An older create of ours may have landed unanswered: then this one was an update of it,
    // and a delete between the two must know (it re-creates the record afresh).
    const maybeBorn =
      doc.present !== true && doc.bornAt !== undefined && doc.bornAt < v ? doc.bornAt : undefined;
    return {
      doc: {
        ...doc,
        present: true,
        bornAt: maybeBorn ?? v,
        ours: applied.ours ?? true,
        fields: { ...fieldsAt(event, Object.keys(event.sets)), ...restored(doc, decision.restore) },
        limbo: withoutKeys(doc.limbo, decision.restore ?? {}),
        creates: maybeBorn === undefined ? [v] : [maybeBorn, v],
        settled,
      },
    };
  }
  return {
    doc: {
      ...doc,
      present: true,
      ...(event.kind === 'create' && doc.bornAt !== undefined && v < doc.bornAt
        ? { bornAt: v }
        : {}),
      fields: {
        ...doc.fields,
        ...fieldsAt(event, decision.fresh),
        ...restored(doc, decision.restore),
      },
      ...(decision.restore === undefined
        ? {}
        : { limbo: withoutKeys(doc.limbo, decision.restore) }),
      creates: event.kind === 'create' ? withCreate(doc.creates, v) : doc.creates,
      settled,
    },
  };
};

/**
 * The ledger after a move's retry found the record in neither place: the doubt of this move (or
 * an older one) is gone at both ends, and this attempt is no longer one that may have landed.
 * A later move's doubt stays: the record may have left with it.
 */
const notMoved = (doc: EntityDoc, event: OrderedEvent, destinationDoc?: EntityDoc): Settled => {
  const v = event.version;
  const { moving, ...rest } = doc;
  const source: EntityDoc = {
    ...(moving !== undefined && moving <= v ? rest : doc),
    uncertain: doc.uncertain.filter((key) => key !== event.attemptKey),
  };
  return { doc: source, ...withoutIncoming(destinationDoc, v) };
};

/** The destination without the doubt of a move at `v` (or an older one), when it had one. */
const withoutIncoming = (
  destinationDoc: EntityDoc | undefined,
  v: Version,
): { destination?: EntityDoc } => {
  if (destinationDoc?.incoming === undefined || destinationDoc.incoming > v) return {};
  const { incoming: _incoming, ...destination } = destinationDoc;
  return { destination };
};

/** Fields and limbo entries set after version `v` (they may outlive a delete at `v`). */
const newerThan = (doc: EntityDoc, v: Version): Record<string, FieldEntry> => {
  const entries = [...Object.entries(doc.limbo ?? {}), ...Object.entries(doc.fields)];
  const kept: Record<string, FieldEntry> = {};
  for (const [name, entry] of entries) {
    if (entry.v > v && isNewer(entry.v, kept[name]?.v)) kept[name] = entry;
  }
  return kept;
};

const restored = (doc: EntityDoc, restore: Readonly<Record<string, FieldValue>> | undefined) =>
  Object.fromEntries(
    Object.keys(restore ?? {}).flatMap((name) => {
      const entry = doc.limbo?.[name];
      return entry === undefined ? [] : [[name, entry]];
    }),
  );

const withoutKeys = <T>(
  record: Readonly<Record<string, T>> | undefined,
  drop: Readonly<Record<string, unknown>>,
): Record<string, T> =>
  Object.fromEntries(Object.entries(record ?? {}).filter(([name]) => !(name in drop)));

/** Fields the destination already holds from events newer than the source's versions. */
const newerOnly = (destination: EntityDoc, source: EntityDoc) =>
  Object.fromEntries(
    Object.entries(destination.fields).filter(([name, entry]) =>
      isNewer(entry.v, source.fields[name]?.v),
    ),
  );
