import {
  CreateTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

/**
 * The entity ledger's table in an emulator, shaped as lib/entity-ledger-table.ts creates it:
 * partition key `pk`, on-demand, TTL on `expiresAt`.
 */
export const createLedgerTable = async (
  client: DynamoDBClient,
  tableName: string,
): Promise<void> => {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    }),
  );
};
