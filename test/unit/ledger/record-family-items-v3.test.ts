/**
 * Record-family ledger items of schema 3 written before a transfer's Gone named its destination
 * are read as they are, that destination "not recorded" (`null`, never made up), and their next
 * message does what it did before. The items in `record-family-items-v3.json` are verbatim what
 * main at 6d381bf left in the store after each history of `record-family-items-v2.json` and its
 * next message, then the outcome, calls, platform and item one more message gave there: a status
 * change on the campaign a transfer emptied, where one did, else on Leads (the snapshot's 16 days
 * later, so that its transfer folds into the snapshot); they ran its EntityLedger against the
 * simulator, on the clocks used here.
 */
import { describe, expect, it } from 'vitest';
import {
  expectAsBefore,
  nextMessageRunner,
  readAsNow,
  transferGones,
  withoutDestinations,
} from './old-record-family-items';
import fixtures from './record-family-items-v3.json';

const SNAPSHOT = 'ours, its add folded into a snapshot';

const nextMessageOn = nextMessageRunner();

describe('a record family item of schema 3 without destinations', () => {
  it('has transfer Gones among the fixtures, in known places and, after a fold, in a snapshot', () => {
    // Assess
    const gones = fixtures.flatMap((f) => transferGones(f.item.known.places));
    expect(gones.length).toBeGreaterThanOrEqual(3);
    expect(gones.every((gone) => gone.to === undefined)).toBe(true);
    const folded = fixtures.find((f) => f.name === SNAPSHOT)?.after.item.snapshot?.state;
    expect(transferGones(folded)).toHaveLength(1);
  });

  it.each(fixtures)('$name: is read as it is, each destination not recorded', (fixture) => {
    // Act
    const doc = readAsNow(fixture.item);

    // Assess: nothing else changes, and no transfer Gone makes up where the record went.
    expect(fixture.item.schema).toBe(3);
    expect(withoutDestinations(doc)).toEqual(fixture.item);
    expect(transferGones(doc).map(({ to }) => to)).toEqual(
      transferGones(fixture.item).map(() => null),
    );
  });

  it.each(fixtures)('$name: its next message does what it did before', async (fixture) => {
    // Act: the item as schema 3 left it, the platform as it was then, the same message.
    const next = await nextMessageOn(fixture);

    // Assess: what the old code did (what the old schema knew, converted)
    expectAsBefore(next, fixture);
  });

  it('keeps a folded transfer’s destination in the snapshot, and the older Gone’s unknown', async () => {
    // Prepare
    const fixture = fixtures.find((f) => f.name === SNAPSHOT);
    if (fixture === undefined) throw new Error(`no fixture ${SNAPSHOT}`);

    // Act: its transfer folds into the snapshot, as the replay has it now.
    const next = await nextMessageOn(fixture);

    // Assess
    const item = readAsNow(next.item);
    expect(item?.snapshot?.state.Leads).toEqual({
      gone: { by: 'transfer', v: expect.any(String), to: 'Later' },
    });
    expect(item?.known.places.Leads).toEqual({
      gone: { by: 'transfer', v: expect.any(String), to: null },
    });
  });
});
