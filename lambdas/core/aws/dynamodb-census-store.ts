import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { CensusStore } from '../instance-census';
import { BREAKER_KEY_PREFIX } from './dynamodb-breaker-store';

export interface DynamoDbCensusStoreOptions {
  /** The ledger table (partition key `pk`, TTL attribute `expiresAt`). */
  readonly tableName: string;
  readonly client?: DynamoDBClient;
}

/** Each instance's check-in time is an attribute of the service's item, named after it. */
const INSTANCE_ATTRIBUTE_PREFIX = 'at_';
/** A census item nobody checked into for a day goes by itself. */
const TTL_SECONDS = 24 * 3600;

/**
 * One item per platform service next to its breaker (`breaker#realtime#instances`, inside the
 * prefix the read functions' IAM policy allows). A check-in is one UpdateItem that returns the
 * whole item: no read-modify-write, so concurrent check-ins never lose each other.
 */
export class DynamoDbCensusStore implements CensusStore {
  readonly #table: string;
  readonly #client: DynamoDBClient;

  constructor(options: DynamoDbCensusStoreOptions) {
    this.#table = options.tableName;
    this.#client = options.client ?? new DynamoDBClient({});
  }

  async checkIn(
    service: string,
    instance: string,
    now: number,
    forget: ReadonlyMap<string, number>,
  ): Promise<ReadonlyMap<string, number>> {
    const gone = [...forget].filter(([other]) => other !== instance);
    try {
      return await this.#update(service, instance, now, gone);
    } catch (error) {
      // One of them checked in again since it was seen quiet: keep them all, check in alone.
      if (!(error instanceof ConditionalCheckFailedException) || gone.length === 0) throw error;
      return await this.#update(service, instance, now, []);
    }
  }

  async #update(
    service: string,
    instance: string,
    now: number,
    gone: readonly (readonly [string, number])[],
  ): Promise<ReadonlyMap<string, number>> {
    const names: Record<string, string> = { '#me': `${INSTANCE_ATTRIBUTE_PREFIX}${instance}` };
    const values: Record<string, { N: string }> = {
      ':now': { N: String(now) },
      ':ttl': { N: String(Math.floor(now / 1000) + TTL_SECONDS) },
    };
    gone.forEach(([other, at], i) => {
      names[`#gone${i}`] = `${INSTANCE_ATTRIBUTE_PREFIX}${other}`;
      values[`:seen${i}`] = { N: String(at) };
    });
    const remove = gone.length === 0 ? '' : ` REMOVE ${gone.map((_, i) => `#gone${i}`).join(', ')}`;
    const answer = await this.#client.send(
      new UpdateItemCommand({
        TableName: this.#table,
        Key: { pk: { S: `${BREAKER_KEY_PREFIX}${service}#instances` } },
        UpdateExpression: `SET #me = :now, expiresAt = :ttl${remove}`,
        // Only a check-in still as it was seen quiet is forgotten.
        ...(gone.length === 0
          ? {}
          : { ConditionExpression: gone.map((_, i) => `#gone${i} = :seen${i}`).join(' AND ') }),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    const seen = new Map<string, number>();
    for (const [name, value] of Object.entries(answer.Attributes ?? {})) {
      if (name.startsWith(INSTANCE_ATTRIBUTE_PREFIX) && value.N !== undefined) {
        seen.set(name.slice(INSTANCE_ATTRIBUTE_PREFIX.length), Number(value.N));
      }
    }
    return seen;
  }
}
