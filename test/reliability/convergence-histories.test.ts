/**
 * The convergence property over issue 23's histories, on the in-memory ledger: records that
 * move up to four times (back to a campaign they left included), a clientId held in two
 * campaigns at once, steps that name a record by previewRecordId only, steps a lagging producer
 * addresses to the campaign a move emptied, and work agents do on the platform between
 * deliveries. Delivered shuffled, doubled, concurrently, through faults (lost answers included)
 * and a redrive, every entity must end as the model says: its events applied once each, in
 * order. `CONVERGENCE_DELIVERY=in-order` delivers the same histories once each, in order,
 * without faults: the reference run. The same properties run on moto's DynamoDB in
 * test/integration/convergence/.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { type HistoryShape, historiesArb, historyArb } from '../../local/convergence/histories';
import { propertySeed, sizeFromEnv } from '../support/size-from-env';
import {
  convergenceRun,
  deliveryModeFromEnv,
  inMemoryLedger,
  simulatorsForFile,
} from './convergence/convergence-check';
import { platformWorkRun } from './convergence/platform-work';

const RUNS = sizeFromEnv('CONVERGENCE_HISTORY_RUNS', 100);
const SEED = propertySeed(20261127, 'CONVERGENCE_SEED');
const mode = deliveryModeFromEnv();
const { simulators, stats } = simulatorsForFile(
  `convergence of issue 23's histories (in-memory ledger, ${mode})`,
);

const MOVE_CHAINS: HistoryShape = {
  records: 5,
  users: 2,
  maxMoves: 4,
  twins: false,
  byPreviewRecordId: false,
};

// No shrinking: each run is a whole delivered day; the first counterexample is printed as is.
const settings = (runs: number, offset: number) => ({
  numRuns: runs,
  seed: SEED + offset,
  endOnFailure: true,
});

describe(`convergence of issue 23's histories on the in-memory ledger (${mode})`, () => {
  it.each<[string, HistoryShape]>([
    ['records that move up to four times, back included', MOVE_CHAINS],
    [
      'a clientId held in two campaigns at once, moved between them',
      { ...MOVE_CHAINS, twins: true },
    ],
    [
      'steps that name the record by previewRecordId only',
      { ...MOVE_CHAINS, twins: true, byPreviewRecordId: true },
    ],
  ])('every entity ends as its events applied once each, in order: %s', async (_name, shape) => {
    await fc.assert(
      fc.asyncProperty(historyArb(shape), fc.nat(), async (history, seed) => {
        await convergenceRun(simulators(), inMemoryLedger(), history, seed, stats, { mode });
      }),
      settings(RUNS, shape.byPreviewRecordId ? 2 : shape.twins ? 1 : 0),
    );
  });

  it.each<[string, HistoryShape, number]>([
    ['', { ...MOVE_CHAINS, twins: true, staleAddresses: true }, 4],
    [
      ', and others by previewRecordId only',
      { ...MOVE_CHAINS, twins: true, byPreviewRecordId: true, staleAddresses: true },
      5,
    ],
  ])(
    'every entity ends as its events applied once each, in order: steps addressed to the campaign the record left%s',
    async (_name, shape, offset) => {
      await fc.assert(
        fc.asyncProperty(historyArb(shape), fc.nat(), async (history, seed) => {
          await convergenceRun(simulators(), inMemoryLedger(), history, seed, stats, { mode });
        }),
        settings(RUNS, offset),
      );
    },
  );

  it.each([
    ['records that moved once', historiesArb(5, 0)],
    [
      'move chains and a clientId in two campaigns',
      historyArb({ ...MOVE_CHAINS, users: 0, twins: true }),
    ],
  ])(
    'work agents did on the platform stays, and newer data lands (%s)',
    async (_name, histories) => {
      await fc.assert(
        fc.asyncProperty(histories, fc.nat(), async (history, seed) => {
          await platformWorkRun(simulators(), inMemoryLedger(), history, seed, stats, { mode });
        }),
        settings(RUNS, 3),
      );
    },
  );
});
