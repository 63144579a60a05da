/**
 * The ledger, the brake and the breaker rest on DynamoDB applying a conditional write
 * atomically. moto alone does not (it checks, then writes, on many threads), so the tests' moto
 * starts through local/aws-emulator/atomic_moto_server.py. Without it this race is lost only
 * when the machine is loaded: the brake contract's four-instance race then let 8–9 of a limit
 * of 7 through in 5 of 6 concurrent runs, and 0 of 6 with it.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createLedgerTable, motoDynamoDbClient } from '../support/ledger-table';

const dynamoDb = motoDynamoDbClient();

describe('moto as the tests start it', () => {
  it('lets exactly one of many racing conditional writes on one item through', async () => {
    // Prepare
    const tableName = await createLedgerTable(dynamoDb);
    const claim = (by: number) =>
      dynamoDb.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { pk: { S: 'entity#race' } },
          UpdateExpression: 'SET claimedBy = :me',
          ConditionExpression: 'attribute_not_exists(claimedBy)',
          ExpressionAttributeValues: { ':me': { N: String(by) } },
        }),
      );

    // Act
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => claim(i)));

    // Assess
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refusals = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(refusals).toHaveLength(39);
    for (const reason of refusals) {
      expect((reason as Error).name).toBe('ConditionalCheckFailedException');
    }
  });
});
