import type { BreakerState, BreakerStore } from '../resilience/circuit-breaker';
import { expiresAfter, LedgerTable, type LedgerTableOptions, numberValue } from './ledger-table';

/** Prefix of the breaker items in the ledger table; the functions' IAM policy is scoped to it. */
export const BREAKER_KEY_PREFIX = 'breaker#';

const keyOf = (service: string): string => `${BREAKER_KEY_PREFIX}${service}`;

/** A breaker item outlives any outage worth remembering, then goes by itself. */
const TTL_SECONDS = 7 * 24 * 3600;

/**
 * One item per platform service (`breaker#realtime`), shared by every function and instance.
 * The probe lease is a conditional write, so one instance at a time probes a service.
 */
export class DynamoDbBreakerStore implements BreakerStore {
  readonly #table: LedgerTable;

  constructor(options: LedgerTableOptions) {
    this.#table = new LedgerTable(options);
  }

  async read(service: string): Promise<BreakerState | undefined> {
    const item = await this.#table.get(keyOf(service));
    if (item?.openUntil?.N === undefined) return undefined;
    return {
      openUntil: Number(item.openUntil.N),
      openedAt: Number(item.openedAt?.N ?? item.openUntil.N),
      ...(item.probeUntil?.N === undefined ? {} : { probeUntil: Number(item.probeUntil.N) }),
    };
  }

  async open(service: string, openUntil: number, now: number): Promise<void> {
    await this.#table.update(keyOf(service), {
      UpdateExpression:
        'SET openUntil = :until, openedAt = if_not_exists(openedAt, :now), expiresAt = :ttl REMOVE probeUntil',
      ExpressionAttributeValues: {
        ':until': numberValue(openUntil),
        ':now': numberValue(now),
        ':ttl': expiresAfter(now, TTL_SECONDS),
      },
    });
  }

  async claimProbe(service: string, now: number, leaseUntil: number): Promise<boolean> {
    const write = await this.#table.update(keyOf(service), {
      UpdateExpression: 'SET probeUntil = :lease',
      ConditionExpression:
        'attribute_exists(openUntil) AND openUntil <= :now AND (attribute_not_exists(probeUntil) OR probeUntil < :now)',
      ExpressionAttributeValues: { ':lease': numberValue(leaseUntil), ':now': numberValue(now) },
    });
    return write.done;
  }

  async close(service: string): Promise<void> {
    // An update, not a delete: the functions may only get, put and update ledger items.
    await this.#table.update(keyOf(service), {
      UpdateExpression: 'REMOVE openUntil, openedAt, probeUntil',
    });
  }
}
