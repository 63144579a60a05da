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
import { EntityLedger, type NewEvent } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { parseLedgerDoc } from '../../../lambdas/core/ledger/ledger-doc';
import { user } from '../../../lambdas/entities/user';
import { clientAgainstTestSimulator } from '../core/client-fixtures';
import fixtures from './user-items-v3.json';
import { inTodaysWords } from './user-words-v3';

const LOGIN = 'ada@example.com';
const ADA = { firstName: 'Ada', lastName: 'L', userTemplateName: 'Agent' };
/** The ledger's clock when the items were written (it stamps `received`). */
const NOW = Date.UTC(2026, 10, 24, 8);
const KEY = user.keyOf({ loginUserId: LOGIN });
const DELETED = 'a leave in doubt (its answer lost, the read failed)';
/** The version of the delete that item's user is gone by. */
const DELETE_V = '001795161720000.4.dddddddddddddddd';

const { sim, platform } = clientAgainstTestSimulator({}, { maxAttempts: 1 });

const readAsNow = (raw: unknown) => parseLedgerDoc(raw, user.name, user.parts);

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
    expect(doc).toEqual({
      ...fixture.item,
      schema: user.parts.schema,
      events: fixture.item.events.map(inTodaysWords),
      known:
        fixture.name === DELETED
          ? {
              ...fixture.item.known,
              place: { gone: { by: 'delete', v: DELETE_V } },
            }
          : fixture.item.known,
    });
  });

  it.each(fixtures)('$name: its next message does what it did before', async (fixture) => {
    // Prepare: the item as version 3 left it, and the platform as it was then.
    const store = new InMemoryLedgerStore();
    await store.claim(KEY, { token: 'v3', until: 0, eventKey: 'seed' }, 0);
    await store.commit(KEY, 'v3', fixture.item);
    await store.release(KEY, 'v3');
    if (fixture.platform !== null) {
      sim.state.addUser({ loginUserId: LOGIN, ...ADA, firstName: fixture.platform.firstName });
    }
    const ledger = new EntityLedger({ store, now: () => NOW, sleep: async () => {} });

    // Act: the same message, as today's code names its op.
    const outcome = await ledger.apply(user, {
      id: { loginUserId: LOGIN },
      event: inTodaysWords(fixture.next) as NewEvent,
      platform,
      call: { deadline: Date.now() + 30_000 },
      deadline: Date.now() + 30_000,
    });

    // Assess: the same outcome, platform and item (as version 3 had it, converted).
    expect({ category: outcome.category, code: outcome.code }).toEqual(fixture.outcome);
    const found = sim.state.findUser(LOGIN);
    expect(found === undefined ? null : { firstName: found.firstName }).toEqual(
      fixture.after.platform,
    );
    expect(readAsNow(await store.read(KEY))).toEqual(readAsNow(fixture.after.item));
  });
});
