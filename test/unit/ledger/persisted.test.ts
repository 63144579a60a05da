/**
 * What the ledger persists of each entity kind, read back as DynamoDB serves it: nothing is
 * dropped. A zod object drops keys its schema does not name, so a schema lagging its type would
 * lose a field on every read; `Exactly` (ledger-doc.ts) stops that at compile time, this
 * checks the parse path end to end. The arbitraries name every key of their type (`Every`), so
 * a field added to a type and not here fails to compile too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { docAttribute, docOf } from '../../../lambdas/core/ledger/doc-attribute';
import { EVENT_SOURCES, type StoredEvent } from '../../../lambdas/core/ledger/entity-kind';
import type { Gone } from '../../../lambdas/core/ledger/gone';
import {
  type DocParts,
  type LedgerDoc,
  parseLedgerDoc,
} from '../../../lambdas/core/ledger/ledger-doc';
import { WORKED_STATES } from '../../../lambdas/core/platform/platform-responses';
import { recordFamily } from '../../../lambdas/entities/record-family';
import type {
  KnownFamily,
  KnownPlace,
  Unsure,
} from '../../../lambdas/entities/record-family/known';
import type { FamilyId } from '../../../lambdas/entities/record-family/model';
import {
  type FamilyState,
  type Place,
  RECORD_FIELDS,
  type RecordFields,
  type Gone as RecordGone,
  type RecordOp,
  type RecordOrigin,
  type RecordState,
  type Routing,
  type Versioned,
} from '../../../lambdas/entities/record-family/model';
import type { DataItem } from '../../../lambdas/entities/record-family/record-data';
import { user } from '../../../lambdas/entities/user';
import type {
  KnownUser,
  KnownUserPlace,
  KnownUserRecord,
  SureUserPlace,
  UserBase,
} from '../../../lambdas/entities/user/known';
import type {
  UserFields,
  UserGone,
  UserId,
  UserOp,
  UserPlace,
  UserRecord,
  UserState,
} from '../../../lambdas/entities/user/model';

/** An arbitrary for every key of T, optional ones included (those never generate `undefined`). */
type Every<T> = { readonly [K in keyof T]-?: fc.Arbitrary<Required<T>[K]> };

/** Objects as JSON.parse makes them; keys not in `required` are sometimes left out. */
const object = <T, K extends keyof T>(
  model: { [P in keyof T]: fc.Arbitrary<T[P]> },
  required: K[],
) => fc.record(model, { requiredKeys: required, noNullPrototype: true });

const text = fc.string();
const version = fc.string();

// The user.

const userId: fc.Arbitrary<UserId> = object({ loginUserId: text } satisfies Every<UserId>, [
  'loginUserId',
]);

const userFields: fc.Arbitrary<UserFields> = object(
  {
    firstName: text,
    lastName: text,
    userTemplateName: text,
    primaryEmailAddr: text,
    secondaryEmailAddr: text,
    createInCloudConnect: fc.boolean(),
  } satisfies Every<UserFields>,
  ['firstName', 'lastName', 'userTemplateName'],
);

type UserOpOf<Kind> = Extract<UserOp, { kind: Kind }>;
const userOp: fc.Arbitrary<UserOp> = fc.oneof(
  object({ kind: fc.constant('add'), user: userFields } satisfies Every<UserOpOf<'add'>>, [
    'kind',
    'user',
  ]),
  object({ kind: fc.constant('delete') } satisfies Every<UserOpOf<'delete'>>, ['kind']),
);

type RecordOf<Origin> = Extract<UserRecord, { origin: Origin }>;
const userRecord: fc.Arbitrary<UserRecord> = fc.oneof(
  object(
    { origin: fc.constant('ours'), born: version, at: version } satisfies Every<RecordOf<'ours'>>,
    ['origin', 'born', 'at'],
  ),
  object({ origin: fc.constant('outside') } satisfies Every<RecordOf<'outside'>>, ['origin']),
);

// Why an entity is gone: the reasons every kind has (a user's are exactly these).
type GoneBy<By> = Extract<Gone, { by: By }>;
const gone: fc.Arbitrary<Gone> = fc.oneof(
  object({ by: fc.constant('nothing') } satisfies Every<GoneBy<'nothing'>>, ['by']),
  object({ by: fc.constant('delete'), v: version } satisfies Every<GoneBy<'delete'>>, ['by', 'v']),
  object({ by: fc.constant('outside'), after: version } satisfies Every<GoneBy<'outside'>>, [
    'by',
    'after',
  ]),
);

const userPlace: fc.Arbitrary<UserPlace> = fc.oneof(
  object({ user: userRecord } satisfies Every<{ user: UserRecord }>, ['user']),
  object({ gone } satisfies Every<{ gone: UserGone }>, ['gone']),
);

const userState: fc.Arbitrary<UserState> = object(
  { place: userPlace } satisfies Every<UserState>,
  [],
);

const sureUserPlace: fc.Arbitrary<SureUserPlace> = fc.oneof(
  userPlace,
  object(
    {
      user: object(
        { origin: fc.constant('ours-unversioned') } satisfies Every<
          Exclude<KnownUserRecord, UserRecord>
        >,
        ['origin'],
      ),
    },
    ['user'],
  ),
);

type UnsureUser = Extract<KnownUserPlace, { unsure: unknown }>['unsure'];
const knownUserPlace: fc.Arbitrary<KnownUserPlace> = fc.oneof(
  sureUserPlace,
  object(
    {
      unsure: object(
        { before: sureUserPlace, after: sureUserPlace } satisfies Every<UnsureUser>,
        [],
      ),
    } satisfies Every<{ unsure: UnsureUser }>,
    ['unsure'],
  ),
);

type BaseAt<Stage> = Extract<UserBase, { stage: Stage }>;
const userBase: fc.Arbitrary<UserBase> = fc.oneof(
  object({ stage: fc.constant('unseen') } satisfies Every<BaseAt<'unseen'>>, ['stage']),
  object({ stage: fc.constant('found'), place: userPlace } satisfies Every<BaseAt<'found'>>, [
    'stage',
    'place',
  ]),
  object({ stage: fc.constant('written'), place: userPlace } satisfies Every<BaseAt<'written'>>, [
    'stage',
    'place',
  ]),
  object({ stage: fc.constant('written-unseen') } satisfies Every<BaseAt<'written-unseen'>>, [
    'stage',
  ]),
);

const knownUser: fc.Arbitrary<KnownUser> = object(
  { place: knownUserPlace, base: userBase } satisfies Every<KnownUser>,
  ['base'],
);

// The record family.

const familyId: fc.Arbitrary<FamilyId> = object(
  { region: text, clientId: text } satisfies Every<FamilyId>,
  ['region', 'clientId'],
);

// `__proto__` is refused as a campaign name by the messages' schema: no ledger holds it.
const campaign = text.filter((name) => name !== '__proto__');
const fieldValue = fc.oneof(text, fc.integer(), fc.constant(null));
const versioned: fc.Arbitrary<Versioned> = object(
  { v: version, value: fieldValue } satisfies Every<Versioned>,
  ['v', 'value'],
);

const recordFields: fc.Arbitrary<RecordFields> = object(
  {
    data: versioned,
    state: versioned,
    agent: versioned,
    nextWork: versioned,
    skillQueue: versioned,
    timeZone: versioned,
  } satisfies Every<RecordFields>,
  [],
);

type OriginOf<Kind> = Extract<RecordOrigin, { kind: Kind }>;
const recordOrigin: fc.Arbitrary<RecordOrigin> = fc.oneof(
  object({ kind: fc.constant('ours'), born: version } satisfies Every<OriginOf<'ours'>>, [
    'kind',
    'born',
  ]),
  object({ kind: fc.constant('outside') } satisfies Every<OriginOf<'outside'>>, ['kind']),
);

const recordState: fc.Arbitrary<RecordState> = object(
  { origin: recordOrigin, at: version, fields: recordFields } satisfies Every<RecordState>,
  ['origin', 'fields'],
);

type Transfer = Extract<RecordGone, { by: 'transfer' }>;
const recordGone: fc.Arbitrary<RecordGone> = fc.oneof(
  gone,
  object(
    {
      by: fc.constant('transfer'),
      v: version,
      to: fc.oneof(campaign, fc.constant(null)),
    } satisfies Every<Transfer>,
    ['by', 'v', 'to'],
  ),
);

const place: fc.Arbitrary<Place> = fc.oneof(
  object({ record: recordState } satisfies Every<{ record: RecordState }>, ['record']),
  object({ gone: recordGone } satisfies Every<{ gone: RecordGone }>, ['gone']),
);

const places = <P>(value: fc.Arbitrary<P>) =>
  fc.dictionary(campaign, value, { noNullPrototype: true, maxKeys: 3 });

const familyState: fc.Arbitrary<FamilyState> = places(place);

const dataItem: fc.Arbitrary<DataItem> = object(
  { key: text, value: text, displayOrder: fc.integer() } satisfies Every<DataItem>,
  ['key', 'value'],
);

const agent = fc.oneof(text, fc.constant(null));
const routing: fc.Arbitrary<Routing> = object(
  { agent, skillQueue: text, nextWork: fc.integer(), timeZone: text } satisfies Every<Routing>,
  [],
);

type RecordOpOf<Kind> = Extract<RecordOp, { kind: Kind }>;
const recordOp: fc.Arbitrary<RecordOp> = fc.oneof(
  object(
    {
      kind: fc.constant('upsert'),
      campaign,
      items: fc.array(dataItem, { maxLength: 3 }),
      clientIdFieldName: text,
      agent,
      nextWork: fc.integer(),
    } satisfies Every<RecordOpOf<'upsert'>>,
    ['kind', 'campaign', 'items'],
  ),
  object(
    {
      kind: fc.constant('status'),
      campaign,
      state: fc.constantFrom(...WORKED_STATES),
      routing,
    } satisfies Every<RecordOpOf<'status'>>,
    ['kind', 'campaign', 'state', 'routing'],
  ),
  object(
    { kind: fc.constant('transfer'), campaign, to: text, routing } satisfies Every<
      RecordOpOf<'transfer'>
    >,
    ['kind', 'campaign', 'to', 'routing'],
  ),
  object({ kind: fc.constant('delete'), campaign } satisfies Every<RecordOpOf<'delete'>>, [
    'kind',
    'campaign',
  ]),
);

const unsure: fc.Arbitrary<Unsure> = object(
  {
    before: place,
    after: place,
    sent: fc.subarray([...RECORD_FIELDS]),
  } satisfies Every<Unsure>,
  ['sent'],
);

const knownPlace: fc.Arbitrary<KnownPlace> = fc.oneof(
  place,
  object({ unsure } satisfies Every<{ unsure: Unsure }>, ['unsure']),
);

const knownFamily: fc.Arbitrary<KnownFamily> = object(
  {
    places: places(knownPlace),
    base: places(place),
    written: fc.array(campaign, { maxLength: 3 }),
    fresh: fc.array(campaign, { maxLength: 3 }),
  } satisfies Every<KnownFamily>,
  ['places', 'base', 'written'],
);

// The item around them.

const storedEvent = <Op>(op: fc.Arbitrary<Op>): fc.Arbitrary<StoredEvent<Op>> =>
  object(
    {
      key: text,
      v: version,
      action: text,
      op,
      received: fc.nat(),
      settled: fc.constant(true),
      outcome: text,
      repeats: fc.nat(),
      source: fc.constantFrom(...EVENT_SOURCES),
    } satisfies Every<StoredEvent<Op>>,
    ['key', 'v', 'action', 'op'],
  );

type Doc<Id, Op, State, Known> = LedgerDoc<Id, Op, State, Known>;
type Snapshot<Op, State> = NonNullable<Doc<unknown, Op, State, unknown>['snapshot']>;

const ledgerDoc = <Id, Op, State, Known>(
  kind: { readonly name: string; readonly parts: { readonly schema: number } },
  parts: {
    id: fc.Arbitrary<Id>;
    op: fc.Arbitrary<Op>;
    state: fc.Arbitrary<State>;
    known: fc.Arbitrary<Known>;
  },
): fc.Arbitrary<Doc<Id, Op, State, Known>> => {
  const events = fc.array(storedEvent(parts.op), { maxLength: 3 });
  return object(
    {
      schema: fc.constant(kind.parts.schema),
      kind: fc.constant(kind.name),
      id: parts.id,
      events,
      snapshot: object(
        { v: version, state: parts.state, keep: events } satisfies Every<Snapshot<Op, State>>,
        ['v', 'state', 'keep'],
      ),
      known: parts.known,
      aliases: fc.array(text, { maxLength: 3 }),
    } satisfies Every<Doc<Id, Op, State, Known>>,
    ['schema', 'kind', 'id', 'events', 'known'],
  );
};

/** The item as the ledger reads it from DynamoDB: stored as its JSON (deflated), then parsed. */
const readBack = <Id, Op, State, Known>(
  doc: Doc<Id, Op, State, Known>,
  parts: DocParts<Id, Op, State, Known>,
) => parseLedgerDoc(docOf({ doc: docAttribute(doc) }), doc.kind, parts);

/** Stored and read back as the ledger does: nothing dropped, nothing added. */
const keepsEveryField = <Id, Op, State, Known>(
  docs: fc.Arbitrary<Doc<Id, Op, State, Known>>,
  parts: DocParts<Id, Op, State, Known>,
): void => {
  fc.assert(
    fc.property(docs, (doc) => {
      // Act
      const read = readBack(doc, parts);

      // Assess
      expect(read).toStrictEqual(doc);
    }),
  );
};

describe('a ledger item read back', () => {
  // Prepare (each): items with every optional field present in some and absent in others.
  it("keeps every field of a user's id, events, snapshot and known platform state", () => {
    keepsEveryField(
      ledgerDoc(user, { id: userId, op: userOp, state: userState, known: knownUser }),
      user.parts,
    );
  });

  it("keeps every field of a record family's id, events, snapshot and known platform state", () => {
    keepsEveryField(
      ledgerDoc(recordFamily, {
        id: familyId,
        op: recordOp,
        state: familyState,
        known: knownFamily,
      }),
      recordFamily.parts,
    );
  });
});

/** A user item, stored and read back as the ledger does. */
const readUserItem = (doc: { readonly kind: string }) =>
  parseLedgerDoc(docOf({ doc: docAttribute(doc) }), user.name, user.parts);

// A user item of schema 3: the shapes of today, but an add spelled `join` and a delete `leave`,
// in its ops and in why a user is gone.

const V3_WORDS = { add: 'join', delete: 'leave' } as const;

/** A user item's parts as version 3 spelled them (every `kind` in a user item is an op's). */
const spelledV3 = <T>(value: T): T =>
  JSON.parse(
    JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
      const o = v as Record<string, unknown>;
      if (o.kind === 'add' || o.kind === 'delete') return { ...o, kind: V3_WORDS[o.kind] };
      return o.by === 'delete' ? { ...o, by: 'leave' } : o;
    }),
  );

/** A user item of today, and the same as version 3 wrote it. */
const userItemV3 = ledgerDoc(user, {
  id: userId,
  op: userOp,
  state: userState,
  known: knownUser,
}).map((now) => ({ now, old: { ...spelledV3(now), schema: 3 } }));

describe('a user item of schema 3', () => {
  it('is read in the words of today, every field kept', () => {
    fc.assert(
      fc.property(userItemV3, ({ now, old }) => {
        // Act
        const read = readUserItem(old);

        // Assess
        expect(read).toStrictEqual(now);
      }),
    );
  });
});

// A user item of schema 2: who made a user and why one is gone said with versions, '' and '0'
// among them (the placeholders of that shape).

const versionV2 = fc.oneof(fc.constant(''), fc.constant('0'), version);
const placeV2 = fc.oneof(
  object({ user: object({ born: versionV2, at: versionV2 }, ['born', 'at']) }, ['user']),
  object({ gone: versionV2, outside: fc.constant(true as const) }, ['gone']),
);
const knownUserV2 = object(
  {
    place: fc.oneof(
      placeV2,
      object({ unsure: object({ before: placeV2, after: placeV2 }, []) }, ['unsure']),
    ),
    base: placeV2,
    written: fc.constant(true as const),
  },
  [],
);
/** Its events in today's words, and the item as version 2 wrote them (ops spelled as in version 3). */
const userItemV2 = ledgerDoc(
  { name: user.name, parts: { schema: 2 } },
  { id: userId, op: userOp, state: object({ place: placeV2 }, []), known: knownUserV2 },
).map((now) => ({ now, old: spelledV3(now) }));

// A record family item of schema 2: who made a record, what put it where it is, and why a
// campaign is empty said with versions, '' among them (the placeholders of that shape).

const familyVersionV2 = fc.oneof(fc.constant(''), version);
const recordV2 = object({ born: familyVersionV2, at: familyVersionV2, fields: recordFields }, [
  'born',
  'at',
  'fields',
]);
const familyPlaceV2 = fc.oneof(
  object({ record: recordV2 }, ['record']),
  object({ gone: familyVersionV2, outside: fc.constant(true as const) }, ['gone']),
);
const knownFamilyV2 = object(
  {
    places: places(
      fc.oneof(
        familyPlaceV2,
        object(
          {
            unsure: object(
              {
                before: familyPlaceV2,
                after: familyPlaceV2,
                sent: fc.subarray([...RECORD_FIELDS]),
              },
              ['sent'],
            ),
          },
          ['unsure'],
        ),
      ),
    ),
    base: places(familyPlaceV2),
    written: fc.array(campaign, { maxLength: 3 }),
    fresh: fc.array(campaign, { maxLength: 3 }),
  },
  ['places', 'base', 'written'],
);
const familyItemV2 = ledgerDoc(
  { name: recordFamily.name, parts: { schema: 2 } },
  { id: familyId, op: recordOp, state: places(familyPlaceV2), known: knownFamilyV2 },
);

/** A record family item, stored and read back as the ledger does. */
const readFamilyItem = (doc: { readonly kind: string }) =>
  parseLedgerDoc(docOf({ doc: docAttribute(doc) }), recordFamily.name, recordFamily.parts);

describe('a record family item of schema 2', () => {
  it('is read with its campaigns as they were', () => {
    fc.assert(
      fc.property(familyItemV2, (old) => {
        // Act
        const read = readFamilyItem(old);

        // Assess (its id, events and aliases: the table below)
        expect({
          places: Object.keys(read?.known.places ?? {}),
          base: Object.keys(read?.known.base ?? {}),
          written: read?.known.written,
          fresh: read?.known.fresh,
        }).toStrictEqual({
          places: Object.keys(old.known.places),
          base: Object.keys(old.known.base),
          written: old.known.written,
          fresh: old.known.fresh,
        });
      }),
    );
  });
});

/** Each previous version read: the items as it wrote them, with their events in today's words. */
interface PreviousVersion {
  readonly name: string;
  readonly items: fc.Arbitrary<{
    readonly now: LedgerItem;
    readonly old: { readonly kind: string };
  }>;
  readonly read: (doc: { readonly kind: string }) => LedgerItem | undefined;
  readonly schema: number;
}
type LedgerItem = {
  readonly kind: string;
  readonly schema: number;
  readonly id: unknown;
  readonly events: unknown;
  readonly aliases?: unknown;
  readonly snapshot?: { readonly keep: unknown };
};

describe.each<PreviousVersion>([
  {
    name: 'a user item of schema 3',
    items: userItemV3,
    read: readUserItem,
    schema: user.parts.schema,
  },
  {
    name: 'a user item of schema 2',
    items: userItemV2,
    read: readUserItem,
    schema: user.parts.schema,
  },
  {
    name: 'a record family item of schema 2',
    items: familyItemV2.map((old) => ({ now: old, old })),
    read: readFamilyItem,
    schema: recordFamily.parts.schema,
  },
])('$name', ({ items, read, schema }) => {
  it('is read in the current shape, its id, events, kept events and aliases as they were', () => {
    fc.assert(
      fc.property(items, ({ now, old }) => {
        // Act
        const got = read(old);

        // Assess
        expect(got?.schema).toBe(schema);
        expect({
          id: got?.id,
          events: got?.events,
          keep: got?.snapshot?.keep,
          aliases: got?.aliases,
        }).toStrictEqual({
          id: now.id,
          events: now.events,
          keep: now.snapshot?.keep,
          aliases: now.aliases,
        });
      }),
    );
  });

  it('is written back in the current shape, which reads back unchanged', () => {
    fc.assert(
      fc.property(items, ({ old }) => {
        // Prepare
        const converted = read(old);
        if (converted === undefined) throw new Error('an item of a previous version was not read');

        // Act
        const again = read(converted);

        // Assess
        expect(again).toStrictEqual(converted);
      }),
    );
  });
});
