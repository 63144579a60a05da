/**
 * Record-family ledger items of the previous shape (schema 2) are read, not discarded: each is
 * converted to the current shape with its events, and its next message does what it did before.
 * The items in `record-family-items-v2.json` are verbatim what main at 62cc72d (the last to write
 * schema 2) left in the store after each history, with the platform then, and the outcome, calls,
 * platform and item its next message gave there; the histories ran its EntityLedger against the
 * simulator, on the clocks used here.
 */
import { describe, expect, it } from 'vitest';
import { eventVersion } from '../../../lambdas/core/ledger/event-version';
import { recordFamily } from '../../../lambdas/entities/record-family';
import type { KnownFamily, KnownPlace } from '../../../lambdas/entities/record-family/known';
import type { Place } from '../../../lambdas/entities/record-family/model';
import {
  CLIENT_ID,
  expectAsBefore,
  nextMessageRunner,
  REGION,
  readAsNow,
} from './old-record-family-items';
import fixtures from './record-family-items-v2.json';

const nextMessageOn = nextMessageRunner();

const v = (name: string) => {
  const event = fixtures
    .flatMap((f) => [...f.item.events, ...(f.item.snapshot?.keep ?? []), f.next])
    .find((e) => e.key === name);
  if (event === undefined) throw new Error(`no event ${name} in the fixtures`);
  return event.v;
};
const ADD = v('add-or-update-campaign-record@001795507200000.1.17615d3ada50e86b');
const ADD_WITH_AGENT = v('add-or-update-campaign-record@001795507200000.1.bd140823fc37502e');
const MOVE_WITH_QUEUE = v('transfer-campaign-record@001795507800000.3.6e7bf0b2742b001f');
const MOVE = v('transfer-campaign-record@001795507800000.3.6fad67b361a3d6b9');
const DELETE_FIRST = v('delete-campaign-record@001795507200000.4.8870ff85833148fd');
const DELETE = v('delete-campaign-record@001795507800000.4.8870ff85833148fd');

/** A place as the current shape says it, fields left out (they keep their versions and values). */
type Shown =
  | { readonly record: { readonly origin: unknown; readonly at?: string } }
  | { readonly gone: unknown };
type KnownShown =
  | Shown
  | {
      readonly unsure: { readonly before?: Shown; readonly after?: Shown; readonly sent: string[] };
    };

const shown = (place: Place): Shown =>
  'record' in place
    ? {
        record: {
          origin: place.record.origin,
          ...(place.record.at === undefined ? {} : { at: place.record.at }),
        },
      }
    : place;

const knownShown = (place: KnownPlace): KnownShown =>
  'unsure' in place
    ? {
        unsure: {
          ...(place.unsure.before === undefined ? {} : { before: shown(place.unsure.before) }),
          ...(place.unsure.after === undefined ? {} : { after: shown(place.unsure.after) }),
          sent: [...place.unsure.sent],
        },
      }
    : shown(place);

const mapValues = <A, B>(map: Readonly<Record<string, A>>, f: (a: A) => B) =>
  Object.fromEntries(Object.entries(map).map(([key, a]) => [key, f(a)]));

const knownOf = (known: KnownFamily) => ({
  places: mapValues(known.places, knownShown),
  base: mapValues(known.base, shown),
  written: known.written,
  ...(known.fresh === undefined ? {} : { fresh: known.fresh }),
});

const ours = (born: string, at: string): Shown => ({
  record: { origin: { kind: 'ours', born }, at },
});
const SOMEONE_ELSES: Shown = { record: { origin: { kind: 'outside' } } };
const NOTHING: Shown = { gone: { by: 'nothing' } };

/** What each item of schema 2 knew, as the current shape says it (fields aside). */
const CONVERTED: Record<string, ReturnType<typeof knownOf>> = {
  'ours, added': {
    places: { Leads: ours(ADD, ADD) },
    base: { Leads: NOTHING },
    written: ['Leads'],
  },
  'ours, its state changed after a read (fresh)': {
    places: { Leads: ours(ADD_WITH_AGENT, ADD_WITH_AGENT) },
    base: { Leads: NOTHING },
    written: ['Leads'],
    fresh: ['Leads'],
  },
  'someone else’s, found by a read, then changed': {
    places: { Leads: SOMEONE_ELSES },
    base: { Leads: SOMEONE_ELSES },
    written: ['Leads'],
    fresh: ['Leads'],
  },
  'ours, moved': {
    places: {
      Leads: { gone: { by: 'transfer', v: MOVE_WITH_QUEUE, to: null } },
      Later: ours(ADD, MOVE_WITH_QUEUE),
    },
    base: { Leads: NOTHING, Later: NOTHING },
    written: ['Leads', 'Later'],
    fresh: [],
  },
  'ours, deleted': {
    places: { Leads: { gone: { by: 'delete', v: DELETE } } },
    base: { Leads: NOTHING },
    written: ['Leads'],
  },
  'a delete of a campaign never met': {
    places: { Leads: { gone: { by: 'delete', v: DELETE_FIRST } } },
    base: { Leads: NOTHING },
    written: ['Leads'],
  },
  'ours, removed outside (found by a status change)': {
    places: { Leads: { gone: { by: 'outside', after: ADD } } },
    base: { Leads: NOTHING },
    written: ['Leads'],
    fresh: ['Leads'],
  },
  'ours, worked by an agent after an older status change': {
    places: { Leads: ours(ADD, ADD) },
    base: { Leads: NOTHING },
    written: ['Leads'],
    fresh: ['Leads'],
  },
  'a move back refused: someone else’s record there (then removed by an operator)': {
    places: { Leads: { unsure: { before: SOMEONE_ELSES, sent: [] } }, Later: ours(ADD, MOVE) },
    base: { Leads: NOTHING, Later: NOTHING },
    written: ['Leads', 'Later'],
  },
  'an add in doubt (its answer lost, the read failed)': {
    places: { Leads: { unsure: { after: ours(ADD, ADD), sent: ['data'] } } },
    base: {},
    written: ['Leads'],
  },
  'a move in doubt (its answer lost, the read failed)': {
    places: {
      Leads: {
        unsure: {
          before: ours(ADD, ADD),
          after: { gone: { by: 'transfer', v: MOVE, to: null } },
          sent: [],
        },
      },
      Later: { unsure: { after: ours(ADD, MOVE), sent: [] } },
    },
    base: { Leads: NOTHING },
    written: ['Leads', 'Later'],
  },
  'ours, its add folded into a snapshot': {
    places: { Leads: ours(ADD, ADD) },
    base: { Leads: NOTHING },
    written: ['Leads'],
    fresh: ['Leads'],
  },
};

/** Every record's fields, by campaign: a record's field versions and values are kept as they were. */
const fieldsOf = (places: Readonly<Record<string, unknown>>) =>
  Object.entries(places).flatMap(([campaign, place]) => {
    const p = place as { record?: { fields: unknown }; unsure?: Record<string, unknown> };
    const sure = (q: unknown) =>
      (q as { record?: { fields: unknown } } | undefined)?.record?.fields;
    return [
      [campaign, sure(p)],
      [`${campaign} before`, sure(p.unsure?.before)],
      [`${campaign} after`, sure(p.unsure?.after)],
    ].filter(([, fields]) => fields !== undefined);
  });

describe('a record family item of schema 2', () => {
  it('is a fixture of every history named here', () => {
    expect(fixtures.map((f) => f.name).sort()).toEqual(Object.keys(CONVERTED).sort());
  });

  it.each(fixtures)(
    '$name: is read in the current shape, its events and fields kept',
    (fixture) => {
      // Act
      const doc = readAsNow(fixture.item);

      // Assess
      expect(fixture.item.schema).toBe(2);
      if (doc === undefined) throw new Error('not read');
      expect(doc.schema).toBe(recordFamily.parts.schema);
      expect(doc.events).toEqual(fixture.item.events);
      expect(doc.snapshot?.keep).toEqual(fixture.item.snapshot?.keep);
      expect(knownOf(doc.known)).toEqual(CONVERTED[fixture.name]);
      expect(fieldsOf(doc.known.places)).toEqual(fieldsOf(fixture.item.known.places));
      expect(fieldsOf(doc.known.base)).toEqual(fieldsOf(fixture.item.known.base));
      if (fixture.item.snapshot !== undefined) {
        expect(mapValues(doc.snapshot?.state ?? {}, shown)).toEqual({ Leads: ours(ADD, ADD) });
        expect(fieldsOf(doc.snapshot?.state ?? {})).toEqual(fieldsOf(fixture.item.snapshot.state));
      }
    },
  );

  it.each(fixtures)('$name: its next message does what it did before', async (fixture) => {
    // Act: the item as schema 2 left it, the platform as it was then, the same message.
    const next = await nextMessageOn(fixture);

    // Assess: what the old code did (what the old schema knew, converted)
    expectAsBefore(next, fixture);
  });
});

describe('why a campaign of a schema 2 item is empty', () => {
  const at = Date.UTC(2026, 10, 24, 8);
  const create = eventVersion(at, 'add', 'a'.repeat(16));
  const move = eventVersion(at, 'transfer', 'b'.repeat(16));
  const remove = eventVersion(at, 'delete', 'c'.repeat(16));

  it.each([
    ['no version: nothing keeps a record out', { gone: '' }, { by: 'nothing' }],
    ['no version, removed outside: the same', { gone: '', outside: true }, { by: 'nothing' }],
    [
      'a transfer moved it away, to a campaign not recorded',
      { gone: move },
      { by: 'transfer', v: move, to: null },
    ],
    ['a delete removed it', { gone: remove }, { by: 'delete', v: remove }],
    [
      'the version of a record the ledger removed to add it afresh: nothing keeps one out',
      { gone: create },
      { by: 'nothing' },
    ],
    [
      'removed outside after the event that put it there',
      { gone: create, outside: true },
      { by: 'outside', after: create },
    ],
  ])('%s', (_name, gone, expected) => {
    // Prepare
    const item = {
      schema: 2,
      kind: recordFamily.name,
      id: { region: REGION, clientId: CLIENT_ID },
      events: [],
      known: { places: { Leads: gone }, base: {}, written: ['Leads'] },
    };

    // Act
    const doc = readAsNow(item);

    // Assess
    expect(doc?.known.places.Leads).toEqual({ gone: expected });
  });
});
