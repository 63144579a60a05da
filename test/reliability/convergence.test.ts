/**
 * The convergence suite on the in-memory ledger: many random histories of records and users,
 * each delivered shuffled, doubled, concurrently and through platform faults, must leave every
 * entity in the state the model gives (its events applied once each, in order). The same
 * property runs on moto's DynamoDB in test/integration/convergence/.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { historiesArb } from '../../local/convergence/histories';
import type { FaultSettings } from '../../local/simulator';
import { propertySeed, sizeFromEnv } from '../support/size-from-env';
import { convergenceRun, inMemoryLedger, simulatorsForFile } from './convergence/convergence-check';

const RUNS = sizeFromEnv('CONVERGENCE_RUNS', 200);
const { simulators, stats } = simulatorsForFile('convergence (in-memory ledger)');

describe('convergence on the in-memory ledger', () => {
  it('every record and user ends in the state of its newest event, whatever the delivery', async () => {
    await fc.assert(
      fc.asyncProperty(historiesArb(6, 3), fc.nat(), async (events, seed) => {
        await convergenceRun(simulators(), inMemoryLedger(), events, seed, stats);
      }),
      // No shrinking: each run is a whole delivered day; the first counterexample is printed as is.
      { numRuns: RUNS, seed: propertySeed(20261124, 'CONVERGENCE_SEED'), endOnFailure: true },
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
          await convergenceRun(simulators(), inMemoryLedger(), events, seed, stats, { faults });
        }),
        {
          numRuns: Math.max(20, Math.floor(RUNS / 25)),
          seed: propertySeed(20261125),
          endOnFailure: true,
        },
      );
    },
  );
});
