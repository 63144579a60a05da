import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { BreakerState, BreakerStore } from '../circuit-breaker';

/** Prefix of the breaker items in the ledger table; the functions' IAM policy is scoped to it. */
export const BREAKER_KEY_PREFIX = 'breaker#';

export interface DynamoDbBreakerStoreOptions {
  /** The ledger table (partition key `pk`, TTL attribute `expiresAt`). */
  readonly tableName: string;
  readonly client?: DynamoDBClient;
}

/** A breaker item outlives any outage worth remembering, then goes by itself. */
const TTL_SECONDS = 7 * 24 * 3600;

/**
 * One item per platform service (`breaker#realtime`), shared by every function and instance.
 * The probe lease is a conditional write, so one instance at a time probes a service.
 */
export class DynamoDbBreakerStore implements BreakerStore {
  readonly #table: string;
  readonly #client: DynamoDBClient;

  constructor(options: DynamoDbBreakerStoreOptions) {
    this.#table = options.tableName;
    this.#client = options.client ?? new DynamoDBClient({});
  }

  #key(service: string) {
    return { pk: { S: `${BREAKER_KEY_PREFIX}${service}` } };
  }

  async read(service: string): Promise<BreakerState | undefined> {
    const answer = await this.#client.send(
      new GetItemCommand({ TableName: this.#table, Key: this.#key(service) }),
    );
    const item = answer.Item;
    if (item?.openUntil?.N === undefined) return undefined;
    return {
      openUntil: Number(item.openUntil.N),
      openedAt: Number(item.openedAt?.N ?? item.openUntil.N),
      ...(item.probeUntil?.N === undefined ? {} : { probeUntil: Number(item.probeUntil.N) }),
    };
  }

  async open(service: string, openUntil: number, now: number): Promise<void> {
    await this.#client.send(
      new UpdateItemCommand({
        TableName: this.#table,
        Key: this.#key(service),
        UpdateExpression:
          'SET openUntil = :until, openedAt = if_not_exists(openedAt, :now), expiresAt = :ttl REMOVE probeUntil',
        ExpressionAttributeValues: {
          ':until': { N: String(openUntil) },
          ':now': { N: String(now) },
          ':ttl': { N: String(Math.floor(now / 1000) + TTL_SECONDS) },
        },
      }),
    );
  }

  async claimProbe(service: string, now: number, leaseUntil: number): Promise<boolean> {
    try {
      await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: this.#key(service),
          UpdateExpression: 'SET probeUntil = :lease',
          ConditionExpression:
            'attribute_exists(openUntil) AND openUntil <= :now AND (attribute_not_exists(probeUntil) OR probeUntil < :now)',
          ExpressionAttributeValues: {
            ':lease': { N: String(leaseUntil) },
            ':now': { N: String(now) },
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async close(service: string): Promise<void> {
    // An update, not a delete: the functions may only get, put and update ledger items.
    await this.#client.send(
      new UpdateItemCommand({
        TableName: this.#table,
        Key: this.#key(service),
        UpdateExpression: 'REMOVE openUntil, openedAt, probeUntil',
      }),
    );
  }
}
