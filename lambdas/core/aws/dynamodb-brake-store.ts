import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import type {
  BrakeLimit,
  BrakeRoll,
  BrakeState,
  BrakeStore,
  BrakeWrite,
} from '../mass-delete-brake';

/** Prefix of the brake items in the ledger table (`brake#delete-user`). */
export const BRAKE_KEY_PREFIX = 'brake#';

export interface DynamoDbBrakeStoreOptions {
  /** The ledger table (partition key `pk`). */
  readonly tableName: string;
  readonly client?: DynamoDBClient;
}

const number = (value: number): AttributeValue => ({ N: String(value) });

/** A brake item as state; an item without a window (tripped before any count) counts from 0. */
export const brakeStateOf = (
  item: Record<string, AttributeValue> | undefined,
): BrakeState | undefined => {
  if (item === undefined) return undefined;
  const read = (name: string): number | undefined =>
    item[name]?.N === undefined ? undefined : Number(item[name]?.N);
  const optional = Object.fromEntries(
    (['trippedAt', 'rearmedAt', 'limit', 'windowMs'] as const).flatMap((name) => {
      const value = read(name);
      return value === undefined ? [] : [[name, value]];
    }),
  );
  return {
    windowStart: read('windowStart') ?? 0,
    used: read('used') ?? 0,
    previousUsed: read('previousUsed') ?? 0,
    ...optional,
  };
};

/**
 * One item per destructive action, shared by every instance. Every change is one UpdateItem
 * (the functions may not delete ledger items); a refused condition returns the item as it is
 * (`ReturnValuesOnConditionCheckFailure`), so the brake learns without another read.
 */
export class DynamoDbBrakeStore implements BrakeStore {
  readonly #table: string;
  readonly #client: DynamoDBClient;

  constructor(options: DynamoDbBrakeStoreOptions) {
    this.#table = options.tableName;
    this.#client = options.client ?? new DynamoDBClient({});
  }

  #key(action: string) {
    return { pk: { S: `${BRAKE_KEY_PREFIX}${action}` } };
  }

  async #update(
    action: string,
    input: Omit<UpdateItemCommandInput, 'TableName' | 'Key'>,
  ): Promise<BrakeWrite> {
    try {
      const answer = await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: this.#key(action),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ...input,
        }),
      );
      const state = brakeStateOf(answer.Attributes);
      if (state === undefined) throw new Error('UpdateItem returned no attributes');
      return { done: true, state };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        return { done: false, state: brakeStateOf(error.Item) };
      }
      throw error;
    }
  }

  async read(action: string): Promise<BrakeState | undefined> {
    const answer = await this.#client.send(
      new GetItemCommand({ TableName: this.#table, Key: this.#key(action), ConsistentRead: true }),
    );
    return brakeStateOf(answer.Item);
  }

  count(
    action: string,
    expected: {
      readonly windowStart: number;
      readonly previousUsed: number;
      readonly maxUsed: number;
    },
  ): Promise<BrakeWrite> {
    return this.#update(action, {
      UpdateExpression: 'ADD used :one',
      ConditionExpression:
        'attribute_not_exists(trippedAt) AND windowStart = :window AND previousUsed = :previous AND used < :max',
      ExpressionAttributeValues: {
        ':one': number(1),
        ':window': number(expected.windowStart),
        ':previous': number(expected.previousUsed),
        ':max': number(expected.maxUsed),
      },
    });
  }

  roll(action: string, from: number | undefined, to: BrakeRoll): Promise<BrakeWrite> {
    return this.#update(action, {
      UpdateExpression:
        'SET windowStart = :window, previousUsed = :previous, used = :one, #limit = :limit, windowMs = :windowMs',
      ExpressionAttributeNames: { '#limit': 'limit' },
      ConditionExpression:
        from === undefined
          ? 'attribute_not_exists(trippedAt) AND attribute_not_exists(windowStart)'
          : 'attribute_not_exists(trippedAt) AND windowStart = :from',
      ExpressionAttributeValues: {
        ':window': number(to.windowStart),
        ':previous': number(to.previousUsed),
        ':one': number(1),
        ':limit': number(to.limit),
        ':windowMs': number(to.windowMs),
        ...(from === undefined ? {} : { ':from': number(from) }),
      },
    });
  }

  async trip(action: string, now: number, brake: BrakeLimit): Promise<BrakeState> {
    const write = await this.#update(action, {
      UpdateExpression:
        'SET trippedAt = if_not_exists(trippedAt, :now), #limit = :limit, windowMs = :windowMs',
      ExpressionAttributeNames: { '#limit': 'limit' },
      ExpressionAttributeValues: {
        ':now': number(now),
        ':limit': number(brake.limit),
        ':windowMs': number(brake.windowMs),
      },
    });
    if (!write.done) throw new Error('an unconditional UpdateItem was refused');
    return write.state;
  }

  async rearm(action: string, windowStart: number, now: number): Promise<BrakeState> {
    const write = await this.#update(action, {
      UpdateExpression:
        'SET windowStart = :window, used = :zero, previousUsed = :zero, rearmedAt = :now REMOVE trippedAt',
      ExpressionAttributeValues: {
        ':window': number(windowStart),
        ':zero': number(0),
        ':now': number(now),
      },
    });
    if (!write.done) throw new Error('an unconditional UpdateItem was refused');
    return write.state;
  }
}
