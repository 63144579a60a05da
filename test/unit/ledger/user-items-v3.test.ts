/**
 * User ledger items of version 3 are read, not discarded: each is converted to today's words
 * (version 3 called an add `join` and a delete `leave`, in its ops and in why a user is gone) with
 * its events, and its next message does what it did before. The items in `user-items-v3.json` are
 * verbatim what main at 62cc72d (the last to write version 3) left in the store after each
 * history of `user-items-v2.json` and its next message, then the outcome, platform state and item
 * one more message gave there (a delete where the user was there, an add where not); they ran its
 * EntityLedger against the simulator, on the clock used here.
 */
import { describe, expect, it } from 'vitest';
import { expectedNow, nextMessageRunner, readAsNow } from './old-user-items';
import fixtures from './user-items-v3.json';

const DELETED = 'a leave in doubt (its answer lost, the read failed)';
/** The version of the delete that item's user is gone by. */
const DELETE_V = '001795161720000.4.dddddddddddddddd';

const nextMessageOn = nextMessageRunner();

describe('a user item of schema 3', () => {
  it('holds both of its words somewhere among the fixtures', () => {
    // Assess
    const ops = fixtures.flatMap((f) => f.item.events.map((e) => e.op.kind));
    expect(new Set(ops)).toEqual(new Set(['join', 'leave']));
    expect(fixtures.find((f) => f.name === DELETED)?.item.known.place).toEqual({
      gone: { by: 'leave', v: DELETE_V },
    });
  });

  it.each(fixtures)('$name: is read in the current shape and words, its events kept', (fixture) => {
    // Act
    const doc = readAsNow(fixture.item);

    // Assess: only the words change; the one user gone by a delete says so in today's word.
    expect(fixture.item.schema).toBe(3);
    const known =
      fixture.name === DELETED
        ? { ...fixture.item.known, place: { gone: { by: 'delete', v: DELETE_V } } }
        : fixture.item.known;
    expect(doc).toEqual(expectedNow(fixture.item, known));
  });

  it.each(fixtures)('$name: its next message does what it did before', async (fixture) => {
    // Act: the item as schema 3 left it, the platform as it was then, the same message.
    const next = await nextMessageOn(fixture);

    // Assess: the same outcome, platform and item (as schema 3 had it, converted).
    expect(next.outcome).toEqual(fixture.outcome);
    expect(next.platform).toEqual(fixture.after.platform);
    expect(next.item).toEqual(readAsNow(fixture.after.item));
  });
});
