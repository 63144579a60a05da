/**
 * What the tests of older user items share: today's words for an event as versions 2 and 3 wrote
 * it, and the next message run on such an item as it was left, against the simulator.
 */
import { EntityLedger, type NewEvent } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { parseLedgerDoc } from '../../../lambdas/core/ledger/ledger-doc';
import { user } from '../../../lambdas/entities/user';
import { clientAgainstTestSimulator } from '../core/client-fixtures';

/**
 * A user event as today's code names it, given one as versions 2 and 3 of the ledger item wrote
 * it: an add was a `join`, a delete a `leave`. Written out here, apart from the code under test.
 */
export const inTodaysWords = <E extends { readonly op: { readonly kind: string } }>(event: E) => {
  const { op } = event;
  if (op.kind === 'join' && 'user' in op) return { ...event, op: { kind: 'add', user: op.user } };
  if (op.kind === 'leave') return { ...event, op: { kind: 'delete' } };
  throw new Error(`not an op of version 3: ${JSON.stringify(op)}`);
};

export const LOGIN = 'ada@example.com';
const ADA = { firstName: 'Ada', lastName: 'L', userTemplateName: 'Agent' };
/** The ledger's clock when the items were written (it stamps `received`). */
const NOW = Date.UTC(2026, 10, 24, 8);
const KEY = user.keyOf({ loginUserId: LOGIN });

/** An item read as today's code reads it. */
export const readAsNow = (raw: unknown) => parseLedgerDoc(raw, user.name, user.parts);

/** What an old item should read as now: its fields kept, its events in today's words, `known` as given. */
export const expectedNow = (
  item: { readonly events: readonly { readonly op: { readonly kind: string } }[] },
  known: unknown,
) => ({ ...item, schema: user.parts.schema, events: item.events.map(inTodaysWords), known });

/** One fixture: an old item, the platform then, and its next message as the old code stored it. */
export interface OldUserItem {
  readonly item: unknown;
  readonly platform: { readonly firstName: string } | null;
  readonly next: { readonly op: { readonly kind: string } };
}

/**
 * Runs a fixture's next message, in today's words, on its item as the old code left it and the
 * platform as it was then: the outcome, what the platform holds after, and the item read now.
 * Called at a test file's top level (the simulator is started by its hooks).
 */
export const nextMessageRunner = () => {
  const { sim, platform } = clientAgainstTestSimulator({}, { maxAttempts: 1 });
  return (fixture: OldUserItem) => nextMessageOn(fixture, sim, platform);
};

const nextMessageOn = async (
  fixture: OldUserItem,
  sim: ReturnType<typeof clientAgainstTestSimulator>['sim'],
  platform: ReturnType<typeof clientAgainstTestSimulator>['platform'],
) => {
  // Prepare
  const store = new InMemoryLedgerStore();
  await store.claim(KEY, { token: 'old', until: 0, eventKey: 'seed' }, 0);
  await store.commit(KEY, 'old', fixture.item as never);
  await store.release(KEY, 'old');
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
  const found = sim.state.findUser(LOGIN);
  return {
    outcome: { category: outcome.category, code: outcome.code },
    platform: found === undefined ? null : { firstName: found.firstName },
    item: readAsNow(await store.read(KEY)),
  };
};
