import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { LedgerTable, type LedgerTableOptions, numberValue } from '../aws/ledger-table';
import { docAttribute, docOf } from './doc-attribute';
import { type ClaimResult, type Lease, LeaseLostError, type LedgerStore } from './ledger-store';

const CLAIM_NAMES = { '#lease': 'lease', '#until': 'until' };
const HOLDS_LEASE = '#lease.#token = :token';

const leaseToken = (token: string) => ({
  ExpressionAttributeNames: { '#lease': 'lease', '#token': 'token' },
  ExpressionAttributeValues: { ':token': { S: token } },
});

const leaseAttribute = (lease: Lease): AttributeValue => ({
  M: {
    token: { S: lease.token },
    until: { N: String(lease.until) },
    eventKey: { S: lease.eventKey },
  },
});

/**
 * Whether a refused commit finds the item as this commit wrote it, with no lease: an attempt
 * that landed but timed out, which the SDK retried (a taken-over lease leaves another's there).
 */
const isOurCommit = (
  item: Record<string, AttributeValue> | undefined,
  stored: AttributeValue,
): boolean =>
  item !== undefined &&
  item.lease === undefined &&
  item.doc?.B !== undefined &&
  stored.B !== undefined &&
  Buffer.from(item.doc.B).equals(Buffer.from(stored.B));

/**
 * The ledger in one DynamoDB table (partition key `pk`, TTL attribute `expiresAt`). The item is
 * one attribute holding the document (doc-attribute.ts); only the lease is a map, because the
 * conditions read it. Every
 * write is conditional on the lease, so two holders can never both write an entity.
 */
export class DynamoDbLedgerStore implements LedgerStore {
  readonly #table: LedgerTable;

  constructor(options: LedgerTableOptions) {
    this.#table = new LedgerTable(options);
  }

  async claim(key: string, lease: Lease, now: number): Promise<ClaimResult> {
    const write = await this.#table.update(key, {
      UpdateExpression: 'SET #lease = :lease',
      // Or our own lease: an attempt that landed but timed out is retried by the SDK.
      ConditionExpression:
        'attribute_not_exists(#lease) OR #lease.#until < :now OR #lease.#token = :token',
      ExpressionAttributeNames: { ...CLAIM_NAMES, '#token': 'token' },
      ExpressionAttributeValues: {
        ':lease': leaseAttribute(lease),
        ':now': numberValue(now),
        ':token': { S: lease.token },
      },
      ReturnValues: 'ALL_OLD',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (!write.done) return { kind: 'busy', until: Number(write.item?.lease?.M?.until?.N ?? now) };
    const before = write.item?.lease?.M;
    const takenOver = before?.token?.S === lease.token ? undefined : before?.eventKey?.S;
    let doc: unknown;
    try {
      doc = docOf(write.item);
    } catch (error) {
      // Claimed, but unreadable: give the lease back, so the entity is not held until it ends.
      await this.release(key, lease.token);
      throw error;
    }
    return {
      kind: 'claimed',
      doc,
      ...(takenOver === undefined ? {} : { takenOverFrom: takenOver }),
    };
  }

  async commit(key: string, token: string, doc: object, expiresAt?: number): Promise<void> {
    const stored = docAttribute(doc);
    const write = await this.#table.put(
      {
        pk: { S: key },
        doc: stored,
        ...(expiresAt === undefined ? {} : { expiresAt: numberValue(expiresAt) }),
      },
      {
        ConditionExpression: HOLDS_LEASE,
        ...leaseToken(token),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    );
    if (!write.done && !isOurCommit(write.item, stored)) throw new LeaseLostError(key);
  }

  async release(key: string, token: string): Promise<void> {
    // Refused: the lease was already taken over, so there is nothing of ours to release.
    await this.#table.update(key, {
      UpdateExpression: 'REMOVE #lease',
      ConditionExpression: HOLDS_LEASE,
      ...leaseToken(token),
    });
  }

  async read(key: string): Promise<unknown> {
    return docOf(await this.#table.get(key, true));
  }

  async readAlias(alias: string): Promise<string | undefined> {
    return (await this.#table.get(alias, true))?.target?.S;
  }

  async writeAlias(alias: string, target: string, expiresAt: number): Promise<void> {
    await this.#table.put(
      { pk: { S: alias }, target: { S: target }, expiresAt: numberValue(expiresAt) },
      {},
    );
  }
}
