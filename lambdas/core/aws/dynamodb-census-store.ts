import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { CensusStore, CheckIn } from '../resilience/instance-census';
import { BREAKER_KEY_PREFIX } from './dynamodb-breaker-store';
import { expiresAfter, LedgerTable, type LedgerTableOptions, numberValue } from './ledger-table';

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
  readonly #table: LedgerTable;

  constructor(options: LedgerTableOptions) {
    this.#table = new LedgerTable(options);
  }

  async checkIn({ service, instance, now, forget }: CheckIn): Promise<ReadonlyMap<string, number>> {
    const gone = [...forget].filter(([other]) => other !== instance);
    // Refused: one of them checked in again since it was seen quiet. Keep them all, check in alone.
    const seen =
      (await this.#update(service, instance, now, gone)) ??
      (await this.#update(service, instance, now, []));
    if (seen === undefined) throw new Error('an unconditional UpdateItem was refused');
    return seen;
  }

  async #update(
    service: string,
    instance: string,
    now: number,
    gone: readonly (readonly [string, number])[],
  ): Promise<ReadonlyMap<string, number> | undefined> {
    const names: Record<string, string> = { '#me': `${INSTANCE_ATTRIBUTE_PREFIX}${instance}` };
    const values: Record<string, AttributeValue> = {
      ':now': numberValue(now),
      ':ttl': expiresAfter(now, TTL_SECONDS),
    };
    gone.forEach(([other, at], i) => {
      names[`#gone${i}`] = `${INSTANCE_ATTRIBUTE_PREFIX}${other}`;
      values[`:seen${i}`] = numberValue(at);
    });
    const remove = gone.length === 0 ? '' : ` REMOVE ${gone.map((_, i) => `#gone${i}`).join(', ')}`;
    const write = await this.#table.update(`${BREAKER_KEY_PREFIX}${service}#instances`, {
      UpdateExpression: `SET #me = :now, expiresAt = :ttl${remove}`,
      // Only a check-in still as it was seen quiet is forgotten.
      ...(gone.length === 0
        ? {}
        : { ConditionExpression: gone.map((_, i) => `#gone${i} = :seen${i}`).join(' AND ') }),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    });
    if (!write.done) return undefined;
    const seen = new Map<string, number>();
    for (const [name, value] of Object.entries(write.item ?? {})) {
      if (name.startsWith(INSTANCE_ATTRIBUTE_PREFIX) && value.N !== undefined) {
        seen.set(name.slice(INSTANCE_ATTRIBUTE_PREFIX.length), Number(value.N));
      }
    }
    return seen;
  }
}
