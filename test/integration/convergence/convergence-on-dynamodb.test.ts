/**
 * The convergence property with the ledger on moto's DynamoDB: real SDK calls, real condition
 * expressions for the leases, real conditional commits. Fewer histories than the in-memory suite
 * (test/reliability/convergence.test.ts), which runs the same check many times over.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { DynamoDbLedgerStore } from '../../../lambdas/core/ledger/dynamodb-ledger-store';
import { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { historiesArb } from '../../../local/convergence/histories';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import {
  API_KEY,
  convergenceRun,
  type RunStats,
} from '../../reliability/convergence/convergence-check';
import { TENANT } from '../../reliability/support/harness';
import { motoEndpoint } from '../../support/aws-clients';
import {
  clearLedgerTable,
  createLedgerTable,
  motoDynamoDbClient,
  motoLedgerClient,
} from '../../support/ledger-table';

const RUNS = Number(process.env.CONVERGENCE_DYNAMODB_RUNS ?? 60);
const dynamoDb = motoDynamoDbClient(motoEndpoint());
let tableName = '';
let actual: RunningSimulator | undefined;
let expected: RunningSimulator | undefined;
const stats: RunStats = { messages: 0, redeliveries: 0, deadLetters: 0, entities: 0 };

beforeAll(async () => {
  tableName = await createLedgerTable(dynamoDb);
  [actual, expected] = await Promise.all(
    [1, 2].map((seed) => startSimulator({ ...TENANT, apiKey: API_KEY, seed })),
  );
});

afterAll(async () => {
  await Promise.all([actual?.close(), expected?.close()]);
  dynamoDb.destroy();
  console.info(`convergence (ledger on moto DynamoDB): ${JSON.stringify(stats)}`);
});

describe('convergence with the ledger on DynamoDB (moto)', () => {
  it('every record and user ends in the state of its newest event, whatever the delivery', async () => {
    await fc.assert(
      fc.asyncProperty(historiesArb(6, 3), fc.nat(), async (events, seed) => {
        await clearLedgerTable(dynamoDb, tableName);
        const ledger = new EntityLedger({
          store: new DynamoDbLedgerStore({ tableName, client: motoLedgerClient(motoEndpoint()) }),
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms / 20)),
        });
        if (!actual || !expected) throw new Error('simulators not started');
        await convergenceRun({ actual, expected }, ledger, events, seed, stats);
      }),
      { numRuns: RUNS, seed: 20261125, endOnFailure: true },
    );
  });
});
