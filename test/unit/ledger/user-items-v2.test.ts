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
import { EntityLedger, type NewEvent } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { parseLedgerDoc } from '../../../lambdas/core/ledger/ledger-doc';
import { user } from '../../../lambdas/entities/user';
import type { KnownUser } from '../../../lambdas/entities/user/known';
import { clientAgainstTestSimulator } from '../core/client-fixtures';
import fixtures from './user-items-v2.json';
import { inTodaysWords } from './user-words-v3';

const LOGIN = 'ada@example.com';
const ADA = { firstName: 'Ada', lastName: 'L', userTemplateName: 'Agent' };
/** The ledger's clock when the items were written (it stamps `received`). */
const NOW = Date.UTC(2026, 10, 24, 8);
const KEY = user.keyOf({ loginUserId: LOGIN });

const { sim, platform } = clientAgainstTestSimulator({}, { maxAttempts: 1 });

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

const readAsNow = (raw: unknown) => parseLedgerDoc(raw, user.name, user.parts);

describe('a user item of schema 2', () => {
  it('is a fixture of every history named here', () => {
    expect(fixtures.map((f) => f.name).sort()).toEqual(Object.keys(CONVERTED).sort());
  });

  it.each(fixtures)('$name: is read in the current shape, its events kept', (fixture) => {
    // Act
    const doc = readAsNow(fixture.item);

    // Assess
    expect(fixture.item.schema).toBe(2);
    expect(doc).toEqual({
      ...fixture.item,
      schema: user.parts.schema,
      events: fixture.item.events.map(inTodaysWords),
      known: CONVERTED[fixture.name],
    });
  });

  it.each(fixtures)('$name: its next message does what it did before', async (fixture) => {
    // Prepare: the item as schema 2 left it, and the platform as it was then.
    const store = new InMemoryLedgerStore();
    await store.claim(KEY, { token: 'v2', until: 0, eventKey: 'seed' }, 0);
    await store.commit(KEY, 'v2', fixture.item);
    await store.release(KEY, 'v2');
    if (fixture.platform !== null) {
      sim.state.addUser({ loginUserId: LOGIN, ...ADA, firstName: fixture.platform.firstName });
    }
    const ledger = new EntityLedger({ store, now: () => NOW, sleep: async () => {} });

    // Act
    const outcome = await ledger.apply(user, {
      id: { loginUserId: LOGIN },
      event: inTodaysWords(fixture.next) as NewEvent,
      platform,
      call: { deadline: Date.now() + 30_000 },
      deadline: Date.now() + 30_000,
    });

    // Assess: the same outcome, platform and item (its known state as schema 2 had it, converted).
    expect({ category: outcome.category, code: outcome.code }).toEqual(fixture.outcome);
    const found = sim.state.findUser(LOGIN);
    expect(found === undefined ? null : { firstName: found.firstName }).toEqual(
      fixture.after.platform,
    );
    expect(readAsNow(await store.read(KEY))).toEqual(readAsNow(fixture.after.item));
  });
});
