/**
 * User ledger items of the previous shape (schema 2) are read, not discarded: each is converted
 * to the current shape with its events, and its next message does what it did before. The items
 * in `user-items-v2.json` are verbatim what main at 26dbc9b (the last to write schema 2) left in
 * the store after each history, with the outcome, platform state and item its next message gave
 * there; the histories ran its EntityLedger against the simulator, on the clock used here. Their
 * ops say `join` and `leave` (the words of versions 2 and 3): each is read as today's `add` and
 * `delete`, and each next message is sent as today's code names it.
 */
import { describe, expect, it } from 'vitest';
import type { KnownUser } from '../../../lambdas/entities/user/known';
import { expectedNow, nextMessageRunner, readAsNow } from './old-user-items';
import fixtures from './user-items-v2.json';

const v = (name: string) => {
  const event = fixtures.flatMap((f) => [...f.item.events, f.next]).find((e) => e.key === name);
  if (event === undefined) throw new Error(`no event ${name} in the fixtures`);
  return event.v;
};
const JOIN_1 = v('add-user@001795161660000.1.aaaaaaaaaaaaaaaa');
const LEAVE_2 = v('delete-user@001795161720000.4.dddddddddddddddd');

/** What each item of schema 2 knew, as the current shape says it. */
const CONVERTED: Record<string, KnownUser> = {
  'ours, joined': {
    place: { user: { origin: 'ours', born: JOIN_1, at: JOIN_1 } },
    base: { stage: 'written', place: { gone: { by: 'nothing' } } },
  },
  'someone else’s, join refused, then removed by an operator': {
    place: { unsure: { before: { user: { origin: 'outside' } } } },
    base: { stage: 'found', place: { user: { origin: 'outside' } } },
  },
  'ours, left': {
    place: { gone: { by: 'delete', v: LEAVE_2 } },
    base: { stage: 'written', place: { gone: { by: 'nothing' } } },
  },
  'a leave in doubt (its answer lost, the read failed)': {
    place: {
      unsure: {
        before: { user: { origin: 'ours', born: JOIN_1, at: JOIN_1 } },
        after: { gone: { by: 'delete', v: LEAVE_2 } },
      },
    },
    base: { stage: 'written', place: { gone: { by: 'nothing' } } },
  },
  'ours, removed outside (found by the read after a takeover)': {
    place: { gone: { by: 'outside', after: JOIN_1 } },
    base: { stage: 'written', place: { gone: { by: 'nothing' } } },
  },
  'first schema, there and ours (the read failed)': {
    place: { unsure: { after: { user: { origin: 'ours-unversioned' } } } },
    base: { stage: 'written', place: { gone: { by: 'nothing' } } },
  },
  'first schema, not there (the read failed)': {
    place: { unsure: { after: { gone: { by: 'nothing' } } } },
    base: { stage: 'written-unseen' },
  },
};

const nextMessageOn = nextMessageRunner();

describe('a user item of schema 2', () => {
  it('is a fixture of every history named here', () => {
    expect(fixtures.map((f) => f.name).sort()).toEqual(Object.keys(CONVERTED).sort());
  });

  it.each(fixtures)('$name: is read in the current shape, its events kept', (fixture) => {
    // Act
    const doc = readAsNow(fixture.item);

    // Assess
    expect(fixture.item.schema).toBe(2);
    expect(doc).toEqual(expectedNow(fixture.item, CONVERTED[fixture.name]));
  });

  it.each(fixtures)('$name: its next message does what it did before', async (fixture) => {
    // Act: the item as schema 2 left it, the platform as it was then, the same message.
    const next = await nextMessageOn(fixture);

    // Assess: the same outcome, platform and item (as schema 2 had it, converted).
    expect(next.outcome).toEqual(fixture.outcome);
    expect(next.platform).toEqual(fixture.after.platform);
    expect(next.item).toEqual(readAsNow(fixture.after.item));
  });
});
