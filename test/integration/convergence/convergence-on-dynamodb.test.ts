/**
 * The convergence property with the ledger on moto's DynamoDB: real SDK calls, real condition
 * expressions for the leases, real conditional commits. Fewer histories than the in-memory suites
 * (test/reliability/convergence.test.ts and convergence-histories.test.ts), which run the same
 * checks many times over: the first suite's histories, then issue 23's (move chains, a clientId
 * in two campaigns, steps naming the record by previewRecordId, steps addressed to the campaign
 * a move emptied, work done on the platform).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { DynamoDbLedgerStore } from '../../../lambdas/core/ledger/dynamodb-ledger-store';
import { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { type HistoryShape, historiesArb, historyArb } from '../../../local/convergence/histories';
import {
  convergenceRun,
  deliveryModeFromEnv,
  fasterWaits,
  type HistoryRun,
  simulatorsForFile,
} from '../../reliability/convergence/convergence-check';
import { platformWorkRun } from '../../reliability/convergence/platform-work';
import { motoEndpoint } from '../../support/aws-clients';
import {
  clearLedgerTable,
  createLedgerTable,
  motoDynamoDbClient,
  motoLedgerClient,
} from '../../support/ledger-table';
import { propertySeed, sizeFromEnv } from '../../support/size-from-env';

const RUNS = sizeFromEnv('CONVERGENCE_DYNAMODB_RUNS', 30);
const HISTORY_RUNS = sizeFromEnv('CONVERGENCE_DYNAMODB_HISTORY_RUNS', 15);
const mode = deliveryModeFromEnv();
const dynamoDb = motoDynamoDbClient(motoEndpoint());
let tableName = '';
const { simulators, stats } = simulatorsForFile('convergence (ledger on moto DynamoDB)');

beforeAll(async () => {
  tableName = await createLedgerTable(dynamoDb);
});

afterAll(() => {
  dynamoDb.destroy();
});

/** A fresh table's worth of ledger per run: the table is emptied, a new store opened on it. */
const freshLedger = async (): Promise<EntityLedger> => {
  await clearLedgerTable(dynamoDb, tableName);
  return new EntityLedger({
    store: new DynamoDbLedgerStore({ tableName, client: motoLedgerClient(motoEndpoint()) }),
    sleep: fasterWaits,
  });
};

const MOVE_CHAINS: HistoryShape = {
  records: 4,
  users: 1,
  maxMoves: 4,
  twins: true,
  byPreviewRecordId: false,
};

describe('convergence with the ledger on DynamoDB (moto)', () => {
  it('every record and user ends in the state of its newest event, whatever the delivery', async () => {
    await fc.assert(
      fc.asyncProperty(historiesArb(6, 3), fc.nat(), async (events, seed) => {
        await convergenceRun(simulators(), await freshLedger(), events, seed, stats);
      }),
      { numRuns: RUNS, seed: propertySeed(20261125), endOnFailure: true },
    );
  });

  it.each<[string, HistoryRun, HistoryShape]>([
    [
      'every entity ends in the state of its newest event: move chains and a clientId in two campaigns',
      convergenceRun,
      MOVE_CHAINS,
    ],
    [
      'every entity ends in the state of its newest event: steps naming the record by previewRecordId only',
      convergenceRun,
      { ...MOVE_CHAINS, byPreviewRecordId: true },
    ],
    [
      'every entity ends in the state of its newest event: steps addressed to the campaign the record left',
      convergenceRun,
      { ...MOVE_CHAINS, staleAddresses: true },
    ],
    [
      'every entity ends in the state of its newest event: steps addressed to the campaign the record left, others by previewRecordId only',
      convergenceRun,
      { ...MOVE_CHAINS, byPreviewRecordId: true, staleAddresses: true },
    ],
    [
      'work agents did on the platform stays, and newer data lands',
      platformWorkRun,
      { ...MOVE_CHAINS, users: 0 },
    ],
  ])(`issue 23's histories (${mode}): %s`, async (_name, run, shape) => {
    await fc.assert(
      fc.asyncProperty(historyArb(shape), fc.nat(), async (history, seed) => {
        await run(simulators(), await freshLedger(), history, seed, stats, { mode });
      }),
      { numRuns: HISTORY_RUNS, seed: propertySeed(20261127), endOnFailure: true },
    );
  });
});
