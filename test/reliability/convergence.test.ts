/**
 * The convergence suite on the in-memory ledger: many random histories of records and users,
 * each delivered shuffled, doubled, concurrently and through platform faults, must leave every
 * entity in the state the model gives (its events applied once each, in order). The same
 * property runs on moto's DynamoDB in test/integration/convergence/.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { EntityLedger } from '../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../lambdas/core/ledger/in-memory-ledger-store';
import { historiesArb } from '../../local/convergence/histories';
import { type FaultSettings, type RunningSimulator, startSimulator } from '../../local/simulator';
import { API_KEY, convergenceRun, type RunStats } from './convergence/convergence-check';
import { TENANT } from './support/harness';

const RUNS = Number(process.env.CONVERGENCE_RUNS ?? 500);
let actual: RunningSimulator | undefined;
let expected: RunningSimulator | undefined;
const stats: RunStats = { messages: 0, redeliveries: 0, deadLetters: 0, entities: 0 };

beforeAll(async () => {
  [actual, expected] = await Promise.all(
    [1, 2].map((seed) => startSimulator({ ...TENANT, apiKey: API_KEY, seed })),
  );
});

afterAll(async () => {
  await Promise.all([actual?.close(), expected?.close()]);
  console.info(`convergence (in-memory ledger): ${JSON.stringify(stats)}`);
});

/**
 * Each run gets a ledger of its own. Busy entities are waited for 20× faster than in Lambda:
 * one process plays every function here, and the waits would only stretch the run.
 */
const freshLedger = (): EntityLedger =>
  new EntityLedger({
    store: new InMemoryLedgerStore(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms / 20)),
  });

const simulators = () => {
  if (!actual || !expected) throw new Error('simulators not started');
  return { actual, expected };
};

describe('convergence on the in-memory ledger', () => {
  it('every record and user ends in the state of its newest event, whatever the delivery', async () => {
    await fc.assert(
      fc.asyncProperty(historiesArb(6, 3), fc.nat(), async (events, seed) => {
        await convergenceRun(simulators(), freshLedger(), events, seed, stats);
      }),
      // No shrinking: each run is a whole delivered day; the first counterexample is printed as is.
      { numRuns: RUNS, seed: Number(process.env.CONVERGENCE_SEED ?? 20261124), endOnFailure: true },
    );
  });

  // Outages that outlast the receives: most writes are dead-lettered with their reason, and the
  // operator's redrive after recovery, shuffled like any delivery, must still leave every entity
  // in the state of its newest event. The second mix also applies some requests whose answer is
  // lost, so a transfer may have moved a record that its dead letter says nothing about (the
  // history in convergence/lost-transfer-redriven.test.ts was found by it, on run 11).
  it.each<[string, FaultSettings]>([
    ['the platform is down through the whole delivery', { serverErrorRate: 1 }],
    [
      'the platform fails most requests, resets connections and loses the answers of some it applied',
      { serverErrorRate: 0.7, connectionResetRate: 0.2, lostResponseRate: 0.1 },
    ],
  ])(
    'every entity still converges when %s and the dead letters are redriven',
    async (_name, faults) => {
      await fc.assert(
        fc.asyncProperty(historiesArb(4, 3), fc.nat(), async (events, seed) => {
          await convergenceRun(simulators(), freshLedger(), events, seed, stats, { faults });
        }),
        { numRuns: Math.max(20, Math.floor(RUNS / 25)), seed: 20261125, endOnFailure: true },
      );
    },
  );
});
