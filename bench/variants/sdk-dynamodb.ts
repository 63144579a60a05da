import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { addOrUpdateCampaignRecord } from '../../lambdas/actions/add-or-update-campaign-record';
import { DynamoDbError, type ItemClient } from '../../lambdas/core/aws/dynamodb-json-client';
import { createLambdaHandler } from '../../lambdas/core/wiring';

const COMMANDS = {
  GetItem: GetItemCommand,
  PutItem: PutItemCommand,
  UpdateItem: UpdateItemCommand,
};

/**
 * Cold-start option: the add-or-update handler with the ledger table reached through the AWS
 * SDK's DynamoDB client, as every write function did before the table's own JSON client.
 */
export const handler = createLambdaHandler(addOrUpdateCampaignRecord, {
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
