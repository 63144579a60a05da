import * as z from 'zod/mini';
import { SyncError } from '../errors';
import { EVENT_SOURCES, type StoredEvent } from './entity-kind';
import type { Version } from './event-version';

/**
 * The ledger item of one entity, as persisted (DynamoDB, one JSON attribute; memory locally).
 * It lives up to 400 days, so it carries its kind's schema version and is parsed, never cast:
 * an item of a version the kind reads (`DocParts.previous`) is converted to the current shape,
 * one of any other version is read as "nothing known, the platform in doubt" (`entity-ledger.ts`).
 * Each kind has its own version, so a new shape of one kind keeps what the ledger knows of others.
 */
export interface LedgerDoc<Id, Op, State, Known> {
  /** The version of its kind's item shape (`DocParts.schema`). */
  readonly schema: number;
  /** The entity kind (`record-family`, `user`). */
  readonly kind: string;
  /** Who the entity is on the platform (the ids its requests need). */
  readonly id: Id;
  /** Its events in version order, each with what its message got. */
  readonly events: readonly StoredEvent<Op>[];
  /**
   * Events older than the tombstone horizon, folded: the replay starts from `state`, and events
   * older than `v` are stale. `keep` holds the folded events whose values a later call may still
   * need (the data of a record that may have to be added again).
   */
  readonly snapshot?: {
    readonly v: Version;
    readonly state: State;
    readonly keep: readonly StoredEvent<Op>[];
  };
  /** What the platform holds, as far as the ledger knows, with the version applied per field. */
  readonly known: Known;
  /** previewRecordIds of this entity the ledger has indexed (see the alias items). */
  readonly aliases?: readonly string[];
}

/** A type as zod reads it back: no `readonly` (zod cannot tell), intersections flattened. */
type Plain<T> = T extends readonly (infer E)[]
  ? Plain<E>[]
  : T extends object
    ? { -readonly [K in keyof T]: Plain<T[K]> }
    : T;

/** A type zod reads, as the code holds it: every field and list `readonly` (the inverse of `Plain`). */
export type ReadonlyDeep<T> = T extends readonly (infer E)[]
  ? readonly ReadonlyDeep<E>[]
  : T extends object
    ? { readonly [K in keyof T]: ReadonlyDeep<T[K]> }
    : T;

/**
 * `true` only when A and B are the same type; mutual assignability is not enough: it accepts an
 * optional key present on one side only.
 */
type Same<A, B> =
  (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

/**
 * `Schema` when its output is exactly `T` (same fields, same optional ones, same value types;
 * `readonly` aside), else `never`: `schema satisfies Exactly<typeof schema, T>` fails to compile
 * when a field is added to one and not the other.
 */
export type Exactly<Schema extends z.ZodMiniType, T> =
  Same<Plain<z.output<Schema>>, Plain<T>> extends true ? Schema : never;

const storedEvent = z.object({
  key: z.string(),
  v: z.string(),
  action: z.string(),
  op: z.unknown(),
  received: z.optional(z.number()),
  settled: z.optional(z.literal(true)),
  outcome: z.optional(z.string()),
  repeats: z.optional(z.number()),
  source: z.optional(z.enum(EVENT_SOURCES)),
});

const envelope = z.object({
  schema: z.number(),
  kind: z.string(),
  id: z.unknown(),
  events: z.array(storedEvent),
  snapshot: z.optional(z.object({ v: z.string(), state: z.unknown(), keep: z.array(storedEvent) })),
  known: z.unknown(),
  aliases: z.optional(z.array(z.string())),
});
// The kind's parts are checked by each kind (`DocParts`); the rest of the item here.
envelope satisfies Exactly<typeof envelope, LedgerDoc<unknown, unknown, unknown, unknown>>;

/**
 * How a kind checks its own parts of an item. A zod object drops keys it does not name, so a
 * schema that lags its type would lose a field on every read: each kind checks its schemas with
 * `Exactly`.
 */
export interface DocParts<Id, Op, State, Known> {
  /**
   * The version of the kind's item shape that this code writes. Bump it, and read the old one in
   * `previous`, when an item of the previous shape would read differently now, or an item of the
   * new shape could not be read by the previous code after a rollback: a field renamed, retyped or
   * made required, a union variant (an op, a reason) added, renamed or split. A new optional field
   * needs no bump only when its absence means what the previous code meant; an older deployment
   * reading the new item drops it (zod strips unknown keys), so it must be safe to lose. A bump
   * that only adds variants needs no reader file: the previous version is read by the same
   * shapes, `previous: { schema: <old>, id, op, state, known, previous: <what the old read> }`.
   */
  readonly schema: number;
  readonly id: z.ZodMiniType<Id>;
  readonly op: z.ZodMiniType<Op>;
  readonly state: z.ZodMiniType<State>;
  readonly known: z.ZodMiniType<Known>;
  /**
   * How an item of the kind's previous version is read: its parts in their old shape, each
   * converted to this one (so its events and what it knew are kept). Undefined: none is read.
   */
  readonly previous?: DocParts<Id, Op, State, Known>;
}

/** Where a persisted item was not what this version writes: the path and the problem. */
export class LedgerDocError extends SyncError<'LEDGER_ITEM_INVALID'> {
  override readonly name = 'LedgerDocError';
  readonly code = 'LEDGER_ITEM_INVALID';
  readonly category = 'permanent';
}

const check = <T>(schema: z.ZodMiniType<T>, value: unknown, path: string): T => {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = [path, ...(issue?.path ?? []).map(String)].join('.');
  throw new LedgerDocError(`${at}: ${issue?.message ?? 'invalid'}`);
};

/**
 * The item as this version reads it, in the current shape of the kind's parts; `undefined` for
 * an item of another kind, or of a schema version neither `parts` nor its `previous` read (the
 * caller then knows nothing of the entity and reads the platform). Throws `LedgerDocError` for
 * an item of a version it reads that does not parse: never misread.
 */
export const parseLedgerDoc = <Id, Op, State, Known>(
  raw: unknown,
  kind: string,
  parts: DocParts<Id, Op, State, Known>,
): LedgerDoc<Id, Op, State, Known> | undefined => {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const schema = (raw as { schema?: unknown }).schema;
  if (schema !== parts.schema) {
    const older = parts.previous && parseLedgerDoc(raw, kind, parts.previous);
    return older && { ...older, schema: parts.schema };
  }
  const doc = check(envelope, raw, 'item');
  if (doc.kind !== kind) return undefined;
  const events = (list: typeof doc.events, path: string) =>
    list.map((event, i) => ({ ...event, op: check(parts.op, event.op, `${path}.${i}.op`) }));
  return {
    schema: parts.schema,
    kind,
    id: check(parts.id, doc.id, 'item.id'),
    events: events(doc.events, 'item.events'),
    ...(doc.snapshot === undefined
      ? {}
      : {
          snapshot: {
            v: doc.snapshot.v,
            state: check(parts.state, doc.snapshot.state, 'item.snapshot.state'),
            keep: events(doc.snapshot.keep, 'item.snapshot.keep'),
          },
        }),
    known: check(parts.known, doc.known, 'item.known'),
    ...(doc.aliases === undefined ? {} : { aliases: doc.aliases }),
  };
};
