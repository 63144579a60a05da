import type { UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import type {
  BrakeCountCondition,
  BrakeLimit,
  BrakeRoll,
  BrakeState,
  BrakeStore,
  BrakeWrite,
} from '../resilience/mass-delete-brake';
import { type LedgerItem, LedgerTable, type LedgerTableOptions, numberValue } from './ledger-table';

/** Prefix of the brake items in the ledger table (`brake#<action>`). */
export const BRAKE_KEY_PREFIX = 'brake#';

const keyOf = (action: string): string => `${BRAKE_KEY_PREFIX}${action}`;

/** A brake item as state; an item without a window (tripped before any count) counts from 0. */
export const brakeStateOf = (item: LedgerItem | undefined): BrakeState | undefined => {
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
  readonly #table: LedgerTable;

  constructor(options: LedgerTableOptions) {
    this.#table = new LedgerTable(options);
  }

  async #update(
    action: string,
    input: Omit<UpdateItemCommandInput, 'TableName' | 'Key'>,
  ): Promise<BrakeWrite> {
    const write = await this.#table.update(keyOf(action), {
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      ...input,
    });
    const state = brakeStateOf(write.item);
    if (!write.done) return { done: false, state };
    if (state === undefined) throw new Error('UpdateItem returned no attributes');
    return { done: true, state };
  }

  async read(action: string): Promise<BrakeState | undefined> {
    return brakeStateOf(await this.#table.get(keyOf(action), true));
  }

  count(action: string, expected: BrakeCountCondition): Promise<BrakeWrite> {
    return this.#update(action, {
      UpdateExpression: 'ADD used :one',
      ConditionExpression:
        'attribute_not_exists(trippedAt) AND windowStart = :window AND previousUsed = :previous AND used < :max',
      ExpressionAttributeValues: {
        ':one': numberValue(1),
        ':window': numberValue(expected.windowStart),
        ':previous': numberValue(expected.previousUsed),
        ':max': numberValue(expected.maxUsed),
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
        ':window': numberValue(to.windowStart),
        ':previous': numberValue(to.previousUsed),
        ':one': numberValue(1),
        ':limit': numberValue(to.limit),
        ':windowMs': numberValue(to.windowMs),
        ...(from === undefined ? {} : { ':from': numberValue(from) }),
      },
    });
  }

  async trip(action: string, now: number, brake: BrakeLimit): Promise<BrakeState> {
    const write = await this.#update(action, {
      UpdateExpression:
        'SET trippedAt = if_not_exists(trippedAt, :now), #limit = :limit, windowMs = :windowMs',
      ExpressionAttributeNames: { '#limit': 'limit' },
      ExpressionAttributeValues: {
        ':now': numberValue(now),
        ':limit': numberValue(brake.limit),
        ':windowMs': numberValue(brake.windowMs),
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
        ':window': numberValue(windowStart),
        ':zero': numberValue(0),
        ':now': numberValue(now),
      },
    });
    if (!write.done) throw new Error('an unconditional UpdateItem was refused');
    return write.state;
  }
}
