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
      ConditionExpression: 'attribute_not_exists(#lease) OR #lease.#until < :now',
      ExpressionAttributeNames: CLAIM_NAMES,
      ExpressionAttributeValues: { ':lease': leaseAttribute(lease), ':now': numberValue(now) },
      ReturnValues: 'ALL_OLD',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (!write.done) return { kind: 'busy', until: Number(write.item?.lease?.M?.until?.N ?? now) };
    const takenOver = write.item?.lease?.M?.eventKey?.S;
    return {
      kind: 'claimed',
      doc: docOf(write.item),
      ...(takenOver === undefined ? {} : { takenOverFrom: takenOver }),
    };
  }

  async commit(key: string, token: string, doc: object, expiresAt?: number): Promise<void> {
    const write = await this.#table.put(
      {
        pk: { S: key },
        doc: docAttribute(doc),
        ...(expiresAt === undefined ? {} : { expiresAt: numberValue(expiresAt) }),
      },
      { ConditionExpression: HOLDS_LEASE, ...leaseToken(token) },
    );
    if (!write.done) throw new LeaseLostError(key);
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
