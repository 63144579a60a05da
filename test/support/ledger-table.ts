import {
  CreateTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { motoClientConfig, uniqueName } from './aws-clients';

export const motoDynamoDbClient = (endpoint?: string): DynamoDBClient =>
  new DynamoDBClient(motoClientConfig(endpoint));

/** A fresh ledger table in moto, shaped as the stack creates it (pk, TTL on expiresAt). */
export const createLedgerTable = async (client: DynamoDBClient): Promise<string> => {
  const tableName = uniqueName('ledger');
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
  return tableName;
};
