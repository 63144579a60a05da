/**
 * The history generator reaches the states its properties are for: checked on the in-order
 * model (a simulator that gets each history's events once each, in order), over a fixed sample,
 * so a change that stops producing move chains, twins or previewRecordId-only steps fails here
 * rather than letting the convergence properties pass on easier histories.
 */
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
import { applyInOrder } from '../../../local/convergence/model';
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

const transfersPerLine = (history: History): number[] => {
  const counts = new Map<string, number>();
  for (const { action, message } of eventsOf(history)) {
    if (action !== 'transfer-campaign-record') continue;
    // Correlation ids are `<clientId>-<line>-<step>` (`<clientId>-<step>` in the first shape).
    const line = (message as { correlationId: string }).correlationId.replace(/-\d+$/, '');
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

  it('name records by previewRecordId only in the rest, never in an add, and only records the first part left where they say', async () => {
    // Prepare
    const simulator = platform();
    let byId = 0;

    // Act + Assess
    for (const history of sample(historyArb(SHAPE))) {
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
        const { clientId, occurredAt } = event.message as { clientId?: string; occurredAt: string };
        const sameFamily = history.first.filter(
          (e) => (e.message as { clientId?: string }).clientId === clientId,
        );
        if (sameFamily.length === 0) continue;
        expect(Date.parse(occurredAt)).toBeGreaterThan(
          Math.max(
            ...sameFamily.map((e) => Date.parse((e.message as { occurredAt: string }).occurredAt)),
          ),
        );
      }
    }
    expect(byId).toBeGreaterThan(SAMPLE / 2);
  });
});
