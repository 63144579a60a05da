import type { EventKind, Version } from './event-version';

/** A field value the ledger keeps: ids, states, times and hashes, never record data values. */
export type FieldValue = string | number | null;

export interface FieldEntry {
  /** Version of the event that last set the field. */
  readonly v: Version;
  readonly value: FieldValue;
}

/**
 * What the ledger knows of one entity at one location (a record: region + campaign + clientId;
 * a user: loginUserId). Kept small: no record data, only versions, ids and hashes.
 */
export interface EntityDoc {
  /** Present on the platform as far as our own events say; undefined before the first settled event. */
  readonly present?: boolean;
  /** Version of the event that last decided presence (create, delete, move in or out). */
  readonly since?: Version;
  /** Version of the earliest create of the current incarnation seen so far. */
  readonly bornAt?: Version;
  /** Version of the last delete (or move away): every older event of this entity is stale. */
  readonly deletedAt?: Version;
  /** The current incarnation was created by this integration (an honest ALREADY_EXISTS needs it). */
  readonly ours?: boolean;
  readonly fields: Readonly<Record<string, FieldEntry>>;
  /**
   * Fields set between a late delete and the first create known after it. In the model they
   * landed only if a create came between, so they are off the platform until such a create
   * arrives, and then restored.
   */
  readonly limbo?: Readonly<Record<string, FieldEntry>>;
  /** Versions of the creates (add-or-update) applied to the current incarnation, oldest first. */
  readonly creates: readonly Version[];
  /** The record moved away: older events addressed here follow it, newer ones find the place empty. */
  readonly movedTo?: {
    readonly location: string;
    readonly v: Version;
    /** How to address the entity there (e.g. its new campaign). */
    readonly address?: Readonly<Record<string, string>>;
  };
  /** Version of the move that brought the record here: events addressed here before it found nothing. */
  readonly arrivedAt?: Version;
  /**
   * Version of a move whose call may have reached the platform although no answer said so.
   * Until a retry of it settles where the record is, older events cannot know where to go.
   */
  readonly moving?: Version;
  /** The same doubt at the destination: the version of a move here that may have happened. */
  readonly incoming?: Version;
  /** Keys of events already settled here (applied or skipped), newest last: exact duplicates. */
  readonly settled: readonly string[];
  /** Attempt keys of calls that may have been applied although no answer said so. */
  readonly uncertain: readonly string[];
  /**
   * What a step left half done needs to finish (a record deleted for a re-create whose add
   * failed keeps its data here): handed back to the next attempt, dropped once it succeeds.
   */
  readonly pending?: Readonly<Record<string, unknown>>;
  /**
   * For operators (`ops trace`): the outcome code each settled event got first, and how many
   * duplicates of it were skipped since. Kept for the keys in `settled` only.
   */
  readonly outcomes?: Readonly<Record<string, string>>;
  readonly repeats?: Readonly<Record<string, number>>;
}

export const EMPTY_ENTITY: EntityDoc = { fields: {}, creates: [], settled: [], uncertain: [] };

/** One event as the ordering mechanism sees it: no action names, only what it does to the entity. */
export interface OrderedEvent {
  /** `<action>@<version>`: two copies of one event share it. */
  readonly key: string;
  /**
   * `<action>#<payload hash>`: the same request whatever its time. An earlier attempt that may
   * have reached the platform is remembered by it, so a redelivery with another fallback time
   * (no `occurredAt`) still knows the platform may already hold its payload.
   */
  readonly attemptKey: string;
  readonly version: Version;
  readonly kind: EventKind;
  /** Fields the event sets, with the values the ledger may keep (hashes for record data). */
  readonly sets: Readonly<Record<string, FieldValue>>;
  /** A move: the location the entity goes to. */
  readonly destination?: string;
  /** A move: how to address the entity at its destination (e.g. `{ campaignName }`). */
  readonly destinationAddress?: Readonly<Record<string, string>>;
}

/** How long the lists of settled and uncertain event keys grow before the oldest are dropped. */
export const MAX_REMEMBERED_EVENTS = 50;

export const remember = (list: readonly string[], key: string): string[] =>
  [...list.filter((k) => k !== key), key].slice(-MAX_REMEMBERED_EVENTS);
