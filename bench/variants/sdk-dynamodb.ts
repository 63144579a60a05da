import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { addOrUpdateCampaignRecord } from '../../lambdas/actions/add-or-update-campaign-record';
import { DynamoDbError, type ItemClient } from '../../lambdas/core/aws/dynamodb-json-client';
import { createLambdaHandler } from '../../lambdas/core/wiring';
import { recordFamily } from '../../lambdas/entities/record-family';

const COMMANDS = {
  GetItem: GetItemCommand,
  PutItem: PutItemCommand,
  UpdateItem: UpdateItemCommand,
  Scan: ScanCommand,
};

/**
 * Cold-start option: the add-or-update handler with the ledger table reached through the AWS
 * SDK's DynamoDB client, as every write function did before the table's own JSON client.
 */
export const handler = createLambdaHandler(addOrUpdateCampaignRecord, {
  entity: recordFamily,
  tableClient: (clientConfig): ItemClient => {
    const client = new DynamoDBClient({ ...clientConfig });
    return {
      send: async (operation, input) => {
        const Command = COMMANDS[operation] as new (i: typeof input) => GetItemCommand;
        try {
          return await client.send(new Command(input));
        } catch (error) {
          if (error instanceof ConditionalCheckFailedException) {
            throw new DynamoDbError(error.name, error.message, {
              retryable: false,
              item: error.Item,
            });
          }
          throw error;
        }
      },
    };
  },
});
