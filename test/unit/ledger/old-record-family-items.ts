/**
 * What the tests of older record-family items share: the next message run on such an item as it
 * was left, with the platform as it was then, against the simulator; and the platform as the
 * fixtures keep it.
 */
import { expect } from 'vitest';
import { EntityLedger, type NewEvent } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { parseLedgerDoc } from '../../../lambdas/core/ledger/ledger-doc';
import type { AnyAction } from '../../../lambdas/core/pipeline/action';
import type { CallOptions } from '../../../lambdas/core/platform/platform-caller';
import { recordFamily } from '../../../lambdas/entities/record-family';
import type { PutRecordInput } from '../../../local/simulator/state';
import { clientAgainstTestSimulator } from '../core/client-fixtures';

export const REGION = 'eu-central-1';
export const CLIENT_ID = 'C-1';
/** The simulator's clock when the items were written (it stamps the records' times). */
const NOW = Date.UTC(2026, 10, 24, 9);
const KEY = recordFamily.keyOf({ region: REGION, clientId: CLIENT_ID });

/** An item read as today's code reads it. */
export const readAsNow = (raw: unknown) =>
  parseLedgerDoc(raw, recordFamily.name, recordFamily.parts);

/** A campaign of the platform as the fixtures keep it. */
export interface PlatformCampaign {
  readonly name: string;
  readonly records: readonly object[];
}

/** One fixture: an old item, the platform then, and its next message at the ledger's `now`. */
export interface OldFamilyItem {
  readonly item: unknown;
  readonly platform: readonly PlatformCampaign[];
  readonly now: number;
  readonly next: unknown;
}

/** A record's id is the simulator's sequence, which a platform rebuilt here does not share. */
export const withoutIds = (campaigns: readonly { readonly records: readonly object[] }[]) =>
  campaigns.map((c) => ({
    ...c,
    records: c.records.map((record) => ({ ...record, previewRecordID: 'any' })),
  }));

/**
 * Runs a fixture's next message on its item as the old code left it and the platform as it was
 * then: the outcome, the calls sent, what the platform holds after, and the item as stored.
 * Called at a test file's top level (the simulator is started by its hooks).
 */
export const nextMessageRunner = () => {
  const { sim, platform } = clientAgainstTestSimulator({ now: () => NOW }, { maxAttempts: 1 });

  /** The platform's campaigns and records, as the fixtures keep them. */
  const platformNow = (): PlatformCampaign[] =>
    sim.state.listCampaigns().map((name) => ({
      name,
      records: [...(sim.state.campaign(name)?.records.values() ?? [])].map(
        ({ dataByKey: _, data, campaignName, ...rest }) => ({
          ...rest,
          campaignName,
          previewRecordData: data,
        }),
      ),
    }));

  return async (fixture: OldFamilyItem) => {
    // Prepare: the item as the old code left it, and the platform as it was then.
    const store = new InMemoryLedgerStore();
    await store.claim(KEY, { token: 'old', until: 0, eventKey: 'seed' }, 0);
    await store.commit(KEY, 'old', fixture.item as never);
    await store.release(KEY, 'old');
    sim.state.clear();
    for (const campaign of fixture.platform) {
      sim.state.addCampaign(campaign.name);
      for (const record of campaign.records) sim.state.putRecord(record as PutRecordInput);
    }
    const calls: { action: string; request: unknown }[] = [];
    const recording = new Proxy(platform, {
      get(target, prop) {
        if (prop === 'send') {
          return (action: AnyAction, message: unknown, options?: CallOptions) => {
            calls.push({ action: action.name, request: message });
            return target.send(action, message, options);
          };
        }
        return Reflect.get(target, prop);
      },
    });
    const ledger = new EntityLedger({
      store,
      tombstoneDays: 15,
      now: () => fixture.now,
      sleep: async () => {},
    });

    // Act
    const outcome = await ledger.apply(recordFamily, {
      id: { region: REGION, clientId: CLIENT_ID },
      event: fixture.next as NewEvent,
      platform: recording,
      call: { deadline: Date.now() + 30_000 },
      deadline: Date.now() + 30_000,
    });
    return {
      outcome: { category: outcome.category, code: outcome.code },
      calls,
      platform: platformNow(),
      item: await store.read(KEY),
    };
  };
};

/** Each transfer Gone in a value (an item, or a part of one): the transfer's version and `to`. */
export const transferGones = (value: unknown): { v: unknown; to: unknown }[] => {
  if (typeof value !== 'object' || value === null) return [];
  const gone = value as { by?: unknown; v?: unknown; to?: unknown };
  const here = gone.by === 'transfer' ? [{ v: gone.v, to: gone.to }] : [];
  return [...here, ...Object.values(value).flatMap(transferGones)];
};

/**
 * A value with each transfer Gone's destination left out: what an item written before
 * destinations were kept can be compared by (its Gones read `to: null`).
 */
export const withoutDestinations = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutDestinations);
  if (typeof value !== 'object' || value === null) return value;
  const transfer = (value as { by?: unknown }).by === 'transfer';
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !(transfer && key === 'to'))
      .map(([key, inner]) => [key, withoutDestinations(inner)]),
  );
};

/**
 * The transfer Gones of `item` whose `to` is neither "not recorded" nor a destination a transfer
 * at or after its own named, among the events of `fixture` (its item's, those a snapshot keeps,
 * its next): what the ledger knows names where the call put the record, which for a chain sent
 * as one call is a later transfer's destination.
 */
export const madeUpDestinations = (item: unknown, fixture: OldFamilyItem) => {
  const old = fixture.item as {
    events: { v: string; op: object }[];
    snapshot?: { keep: { v: string; op: object }[] };
  };
  const transfers = [
    ...old.events,
    ...(old.snapshot?.keep ?? []),
    fixture.next as { v: string; op: object },
  ]
    .map(({ v, op }) => ({ v, op: op as { kind: string; to?: string } }))
    .filter(({ op }) => op.kind === 'transfer');
  const namedFrom = (v: string) => transfers.filter((t) => t.v >= v).map((t) => t.op.to);
  return transferGones(item).filter(
    ({ v, to }) => to !== null && !namedFrom(v as string).includes(to as string),
  );
};

/** A captured fixture: the item, its next message, and what that message gave on the old code. */
export interface CapturedFamilyItem extends OldFamilyItem {
  readonly outcome: unknown;
  readonly after: {
    readonly calls: unknown;
    readonly platform: readonly PlatformCampaign[];
    readonly item: unknown;
  };
}

/**
 * Asserts that the next message on an old item did what it did on the old code: the same
 * outcome, calls, platform and item, except that a transfer's Gone this message wrote (a fold
 * included) names the destination its transfer named, which the old code did not keep.
 */
export const expectAsBefore = (
  next: Awaited<ReturnType<ReturnType<typeof nextMessageRunner>>>,
  fixture: CapturedFamilyItem,
): void => {
  expect(next.outcome).toEqual(fixture.outcome);
  expect(next.calls).toEqual(fixture.after.calls);
  expect(withoutIds(next.platform)).toEqual(withoutIds(fixture.after.platform));
  const item = readAsNow(next.item);
  expect(withoutDestinations(item)).toEqual(withoutDestinations(readAsNow(fixture.after.item)));
  expect(madeUpDestinations(item, fixture)).toEqual([]);
};
