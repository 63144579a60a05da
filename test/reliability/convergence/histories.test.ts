/**
 * The history generator reaches the states its properties are for: checked on the in-order
 * model (a simulator that gets each history's events once each, in order), over a fixed sample,
 * so a change that stops producing move chains, twins or previewRecordId-only steps fails here
 * rather than letting the convergence properties pass on easier histories.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventsOf,
  type History,
  type HistoryShape,
  historiesArb,
  historyArb,
  resolveById,
} from '../../../local/convergence/histories';
import { applyInOrder, inVersionOrder } from '../../../local/convergence/model';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { settingsFor, TENANT } from '../support/harness';
import { API_KEY } from './convergence-check';

const SHAPE: HistoryShape = {
  records: 5,
  users: 1,
  maxMoves: 4,
  twins: true,
  byPreviewRecordId: true,
};
const SAMPLE = 60;

let model: RunningSimulator | undefined;

beforeAll(async () => {
  model = await startSimulator({ ...TENANT, apiKey: API_KEY });
});

afterAll(async () => {
  await model?.close();
});

const platform = (): RunningSimulator => {
  if (!model) throw new Error('simulator not started');
  return model;
};

const sample = (arb: fc.Arbitrary<History>): History[] =>
  fc.sample(arb, { seed: 20261127, numRuns: SAMPLE });

/** The campaigns each record the model moved went through, in order, from its add on. */
const pathsOnModel = async (history: History): Promise<string[][]> => {
  const simulator = platform();
  simulator.reset();
  await applyInOrder(eventsOf(history), simulator, settingsFor(simulator.baseUrl), API_KEY);
  const paths = new Map<string, string[]>();
  for (const op of simulator.state.history) {
    if (op.previewRecordID === undefined || op.campaignName === undefined) continue;
    if (op.action === 'addOrUpdateCampaignRecord:add')
      paths.set(op.previewRecordID, [op.campaignName]);
    if (op.action === 'transferCampaignRecord')
      paths.get(op.previewRecordID)?.push(op.campaignName);
  }
  return [...paths.values()];
};

/** A message's line: correlation ids are `<clientId>-<line>-<step>`. */
const lineOf = (message: unknown): string =>
  (message as { correlationId: string }).correlationId.replace(/-\d+$/, '');

interface StaleCount {
  /** Addressed to a campaign the line's record left, holding no record of the clientId then. */
  readonly toEmpty: number;
  /** The same, where that campaign holds another record of the clientId by then. */
  readonly toAnother: number;
}

/**
 * The history's messages addressed to a campaign their line's record had left by then, by a move
 * of that line, found on the in-order model: its events are applied one at a time, each line
 * following the record its add, update or transfer wrote. A record another line's message moved
 * or deleted is no longer the line's (two lines can share a campaign without stale addresses).
 */
const staleOnModel = async (history: History): Promise<StaleCount> => {
  const simulator = platform();
  simulator.reset();
  const settings = settingsFor(simulator.baseUrl);
  /** Per line, its record and the campaigns the line put it in, in order. */
  const lines = new Map<string, { record: string; path: string[] }>();
  const drop = (record: string, but: string) => {
    for (const [line, own] of lines) if (own.record === record && line !== but) lines.delete(line);
  };
  let toEmpty = 0;
  let toAnother = 0;
  for (const event of inVersionOrder(eventsOf(history))) {
    const { campaignName, clientId } = event.message as { campaignName: string; clientId: string };
    const line = lineOf(event.message);
    const path = lines.get(line)?.path ?? [];
    if (
      event.action !== 'add-or-update-campaign-record' &&
      path.includes(campaignName) &&
      path.at(-1) !== campaignName
    ) {
      if (simulator.state.findByClientId(campaignName, clientId)) toAnother += 1;
      else toEmpty += 1;
    }
    const seen = simulator.state.history.length;
    await applyInOrder([event], simulator, settings, API_KEY);
    for (const op of simulator.state.history.slice(seen)) {
      const { previewRecordID: record, campaignName: at } = op;
      if (record === undefined || at === undefined) continue;
      if (op.action === 'deleteRecordFromCampaign') drop(record, '');
      if (op.action === 'addOrUpdateCampaignRecord:add') lines.set(line, { record, path: [at] });
      if (op.action === 'addOrUpdateCampaignRecord:update' && lines.get(line)?.record !== record)
        lines.set(line, { record, path: [at] });
      if (op.action === 'transferCampaignRecord') {
        const own = lines.get(line);
        if (own?.record === record) own.path.push(at);
        else lines.set(line, { record, path: [campaignName, at] });
        drop(record, line);
      }
    }
  }
  return { toEmpty, toAnother };
};

/** A digest of a fixed-seed sample of each shape, to compare with one taken before a change. */
const fingerprint = (shape: HistoryShape): string =>
  createHash('sha256')
    .update(JSON.stringify(fc.sample(historyArb(shape), { seed: 20261127, numRuns: 12 })))
    .digest('hex');

const transfersPerLine = (history: History): number[] => {
  const counts = new Map<string, number>();
  for (const { action, message } of eventsOf(history)) {
    if (action !== 'transfer-campaign-record') continue;
    // `<clientId>-<step>` in the first shape: the record is its line.
    const line = lineOf(message);
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return [...counts.values()];
};

describe('the convergence histories', () => {
  it('move records up to four times, and some of them back to a campaign they left', async () => {
    // Act
    const histories = sample(historyArb(SHAPE));
    const paths = (await Promise.all(histories.map(pathsOnModel))).flat();

    // Assess
    expect(Math.max(...histories.flatMap(transfersPerLine))).toBe(4);
    expect(paths.some((path) => path.length >= 4)).toBe(true);
    expect(paths.some((path) => new Set(path).size < path.length)).toBe(true);
  });

  it('without stale addresses, are the histories they were before that field existed', () => {
    // Prepare: the bench samples the first two shapes with a fixed seed; its figures must not
    // move. Their digests were taken on main before `staleAddresses` was added. The third
    // (previewRecordId steps, which the bench does not sample) was taken again when a family
    // naming a record by id stopped moving or deleting any of it by clientId.
    const moves: HistoryShape = { ...SHAPE, users: 2, twins: false, byPreviewRecordId: false };

    // Act + Assess
    expect(fingerprint(moves)).toBe(
      '4f935cb4e9f66d4ff063b2a9721b3be5ffe0c56026329477e283fb11efbfc49d',
    );
    expect(fingerprint({ ...moves, twins: true, staleAddresses: false })).toBe(
      'bd5760e5b0005bfe0502214e3ad54e6ba9fd67b48e2a05818e2c66677e45485a',
    );
    expect(fingerprint({ ...SHAPE, staleAddresses: false })).toBe(
      '70b242997c7d656c765d1d54c611a383de94fa0b967a6cccfbdb6e71e56a47ee',
    );
  });

  it('with stale addresses, send some messages to a campaign their record left, empty or holding another record by then', async () => {
    // Act
    const counts = [];
    for (const history of sample(
      historyArb({ ...SHAPE, byPreviewRecordId: false, staleAddresses: true }),
    )) {
      counts.push(await staleOnModel(history));
    }

    // Assess
    expect(counts.reduce((sum, count) => sum + count.toEmpty, 0)).toBeGreaterThan(SAMPLE / 2);
    expect(counts.reduce((sum, count) => sum + count.toAnother, 0)).toBeGreaterThan(0);
  });

  it('keep the first shape: one move per record, never back', async () => {
    // Act
    const histories = sample(historiesArb(6, 3));
    const paths = (await Promise.all(histories.map(pathsOnModel))).flat();

    // Assess
    expect(Math.max(...histories.flatMap(transfersPerLine))).toBe(1);
    expect(paths.every((path) => path.length <= 2 && new Set(path).size === path.length)).toBe(
      true,
    );
    expect(histories.every((history) => history.rest.length === 0)).toBe(true);
  });

  it('hold some clientIds in two campaigns at once', async () => {
    // Prepare
    const simulator = platform();
    let twins = 0;

    // Act
    for (const history of sample(historyArb(SHAPE))) {
      simulator.reset();
      await applyInOrder(eventsOf(history), simulator, settingsFor(simulator.baseUrl), API_KEY);
      const held = simulator.state
        .listCampaigns()
        .flatMap((campaign) => simulator.state.listRecords(campaign).map((r) => r.clientId));
      twins += held.length - new Set(held).size;
    }

    // Assess
    expect(twins).toBeGreaterThan(0);
  });

  it.each([
    ['', SHAPE],
    [' (with stale addresses)', { ...SHAPE, staleAddresses: true }],
  ])(
    'move or delete nothing of a family by clientId in the rest once a step there names one of its records by id%s',
    (_with, shape) => {
      // Prepare
      let byId = 0;
      let movesById = 0;

      // Act + Assess: a move or delete by clientId, delivered first, could take the record from
      // where the message by id looks for it (docs/decisions.md, known limit 6).
      for (const history of sample(historyArb(shape))) {
        const named = new Set(
          history.rest.flatMap((e) => (e.byId === undefined ? [] : [e.byId.clientId])),
        );
        byId += named.size;
        for (const event of history.rest) {
          const { clientId } = event.message as { clientId: string };
          const removes = ['transfer-campaign-record', 'delete-campaign-record'].includes(
            event.action,
          );
          if (!removes || !named.has(clientId)) continue;
          expect(event.byId, JSON.stringify(event.message)).toBeDefined();
          movesById += 1;
        }
      }
      expect(byId).toBeGreaterThan(0);
      expect(movesById).toBeGreaterThan(0);
    },
  );

  it.each([
    ['', SHAPE],
    // Stale steps too: the split is chosen by walking the steps as drawn (histories.ts).
    [' (with stale addresses)', { ...SHAPE, staleAddresses: true }],
  ])(
    'name records by previewRecordId only in the rest, never in an add, and only records the first part left where they say%s',
    async (_with, shape) => {
      // Prepare
      const simulator = platform();
      let byId = 0;

      // Act + Assess
      for (const history of sample(historyArb(shape))) {
        simulator.reset();
        await applyInOrder(history.first, simulator, settingsFor(simulator.baseUrl), API_KEY);
        const marked = history.rest.filter((event) => event.byId !== undefined);
        byId += marked.length;
        expect(marked.map((event) => event.action)).not.toContain('add-or-update-campaign-record');
        const resolved = resolveById(history.rest, simulator.state);
        expect(resolved.unresolved).toEqual([]);
        for (const [i, event] of history.rest.entries()) {
          const sent = resolved.messages[i]?.message as Record<string, unknown>;
          if (event.byId === undefined) {
            expect(sent).toEqual(event.message);
          } else {
            expect(sent).toHaveProperty('previewRecordId');
            expect(sent).not.toHaveProperty('clientId');
          }
        }
        // Every event of the rest is newer than its family's events in the first part.
        for (const event of history.rest) {
          const { clientId, occurredAt } = event.message as {
            clientId?: string;
            occurredAt: string;
          };
          const sameFamily = history.first.filter(
            (e) => (e.message as { clientId?: string }).clientId === clientId,
          );
          if (sameFamily.length === 0) continue;
          expect(Date.parse(occurredAt)).toBeGreaterThan(
            Math.max(
              ...sameFamily.map((e) =>
                Date.parse((e.message as { occurredAt: string }).occurredAt),
              ),
            ),
          );
        }
      }
      expect(byId).toBeGreaterThan(SAMPLE / 2);
    },
  );
});
