import { BatchWriteItemCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ledgerTableClient } from '../../lambdas/core/aws/ledger-table';
import { createLedgerTable as createTable } from '../../local/aws-emulator/ledger-table';
import { motoClientConfig, uniqueName } from './aws-clients';

/** The SDK's client, for what the functions never do (create, scan, clear a table). */
export const motoDynamoDbClient = (endpoint?: string): DynamoDBClient =>
  new DynamoDBClient(motoClientConfig(endpoint));

/** The client the stores use in the functions, set up as they set it up, pointed at moto. */
export const motoLedgerClient = (endpoint?: string): DynamoDBClient =>
  ledgerTableClient(motoClientConfig(endpoint));

/** A fresh ledger table in moto, shaped as the stack creates it. */
export const createLedgerTable = async (client: DynamoDBClient): Promise<string> => {
  const tableName = uniqueName('ledger');
  await createTable(client, tableName);
  return tableName;
};

/** Empties a ledger table between tests (each test starts with entities the ledger never saw). */
export const clearLedgerTable = async (
  client: DynamoDBClient,
  tableName: string,
): Promise<void> => {
  const { Items = [] } = await client.send(
    new ScanCommand({ TableName: tableName, ProjectionExpression: 'pk' }),
  );
  for (let i = 0; i < Items.length; i += 25) {
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [tableName]: Items.slice(i, i + 25).map((item) => ({
            DeleteRequest: { Key: { pk: item.pk ?? { S: '' } } },
          })),
        },
      }),
    );
  }
};

/** Where a store keeps its items: a table and the client that reaches it. */
export interface LedgerTableAccess {
  readonly tableName: string;
  readonly client: DynamoDBClient;
}

/**
 * The implementations a store contract runs against, as `describe.each` rows: the in-memory
 * store (local run, unit properties) and the DynamoDB store on a fresh moto ledger table (real
 * SDK calls, real condition expressions).
 */
export const ledgerTableStores = <Store>(
  inMemory: () => Store,
  onDynamoDb: (access: LedgerTableAccess) => Store,
): readonly [string, () => Promise<Store>][] => [
  ['in-memory', async () => inMemory()],
  [
    'DynamoDB (moto)',
    async () => {
      const tableName = await createLedgerTable(motoDynamoDbClient());
      return onDynamoDb({ tableName, client: motoLedgerClient() });
    },
  ],
];
