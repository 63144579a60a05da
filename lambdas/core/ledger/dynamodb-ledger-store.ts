import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { EntityDoc } from './entity';
import { type ClaimResult, type Lease, LeaseLostError, type LedgerStore } from './ledger-store';

/**
 * The ledger in one DynamoDB table (partition key `pk`, TTL attribute `expiresAt`). The document
 * is one JSON string attribute; only the lease is a map, because the conditions read it. Every
 * write is conditional on the lease, so two holders can never both write an entity.
 */
export interface DynamoDbLedgerStoreOptions {
  readonly tableName: string;
  /** For tests (an emulator endpoint). @default a client from the standard SDK configuration */
  readonly client?: DynamoDBClient;
}

const CLAIM_NAMES = { '#lease': 'lease', '#until': 'until' };

const leaseAttribute = (lease: Lease): AttributeValue => ({
  M: {
    token: { S: lease.token },
    until: { N: String(lease.until) },
    eventKey: { S: lease.eventKey },
  },
});

const parseDoc = (item: Record<string, AttributeValue> | undefined): EntityDoc | undefined => {
  const text = item?.doc?.S;
  return text === undefined ? undefined : (JSON.parse(text) as EntityDoc);
};

export class DynamoDbLedgerStore implements LedgerStore {
  readonly #table: string;
  readonly #client: DynamoDBClient;

  constructor(options: DynamoDbLedgerStoreOptions) {
    this.#table = options.tableName;
    this.#client = options.client ?? new DynamoDBClient({});
  }

  async claim(key: string, lease: Lease, now: number): Promise<ClaimResult> {
    try {
      const answer = await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: { pk: { S: key } },
          UpdateExpression: 'SET #lease = :lease',
          ConditionExpression: 'attribute_not_exists(#lease) OR #lease.#until < :now',
          ExpressionAttributeNames: CLAIM_NAMES,
          ExpressionAttributeValues: {
            ':lease': leaseAttribute(lease),
            ':now': { N: String(now) },
          },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const takenOver = answer.Attributes?.lease?.M?.eventKey?.S;
      return {
        kind: 'claimed',
        doc: parseDoc(answer.Attributes),
        ...(takenOver === undefined ? {} : { takenOverFrom: takenOver }),
      };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        return { kind: 'busy', until: Number(error.Item?.lease?.M?.until?.N ?? now) };
      }
      throw error;
    }
  }

  async commit(key: string, token: string, doc: EntityDoc, expiresAt?: number): Promise<void> {
    try {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: {
            pk: { S: key },
            doc: { S: JSON.stringify(doc) },
            ...(expiresAt === undefined ? {} : { expiresAt: { N: String(expiresAt) } }),
          },
          ConditionExpression: '#lease.#token = :token',
          ExpressionAttributeNames: { '#lease': 'lease', '#token': 'token' },
          ExpressionAttributeValues: { ':token': { S: token } },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new LeaseLostError(key);
      throw error;
    }
  }

  async release(key: string, token: string): Promise<void> {
    try {
      await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: { pk: { S: key } },
          UpdateExpression: 'REMOVE #lease',
          ConditionExpression: '#lease.#token = :token',
          ExpressionAttributeNames: { '#lease': 'lease', '#token': 'token' },
          ExpressionAttributeValues: { ':token': { S: token } },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return;
      throw error;
    }
  }

  async read(key: string): Promise<EntityDoc | undefined> {
    const answer = await this.#client.send(
      new GetItemCommand({ TableName: this.#table, Key: { pk: { S: key } }, ConsistentRead: true }),
    );
    return parseDoc(answer.Item);
  }
}
