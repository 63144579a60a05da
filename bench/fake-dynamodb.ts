/**
 * Just enough of DynamoDB on loopback for the entity ledger's requests (AWS JSON 1.0,
 * `X-Amz-Target: DynamoDB_20120810.<Operation>`): the claim and release `UpdateItem`s, the
 * commit `PutItem` and `GetItem`, with the store's condition expressions evaluated for what they
 * say (lease free or expired; lease token matches). Every answer leaves `latencyMs` after its
 * request arrived, a stand-in for the network and DynamoDB's own time. It counts requests, the stored items' sizes
 * and the capacity units on-demand DynamoDB would bill for them, for the requests-per-message
 * and cost figures; requests for the circuit breaker's items (same table) are counted apart, as
 * they come per instance and cache period, not per message.
 */
import { BREAKER_KEY_PREFIX } from '../lambdas/core/aws/dynamodb-breaker-store';
import { answerAfter, startAwsJsonServer } from './aws-json-server';

/** On the wire: B is base64. */
type AttributeValue = { S?: string; N?: string; B?: string; M?: Record<string, AttributeValue> };
type Item = Record<string, AttributeValue>;

export interface FakeDynamoDb {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_DYNAMODB`. */
  readonly url: string;
  readonly latencyMs: number;
  /** Ledger requests answered since start or the last `reset`, by operation. */
  readonly requests: Readonly<Record<string, number>>;
  /** Requests for the circuit breaker's items since start or the last `reset`. */
  readonly breakerRequests: number;
  /** Largest item stored, in DynamoDB's item-size measure (names + values, UTF-8 bytes). */
  readonly largestItemBytes: number;
  /** Capacity units billed for the ledger's requests (breaker requests left out). */
  readonly ledgerUnits: CapacityUnits;
  reset(): void;
  close(): Promise<void>;
}

export interface CapacityUnits {
  readonly read: number;
  readonly write: number;
}

/**
 * On-demand units: a write is 1 per started KB of the larger of the item before and after (a
 * refused condition is billed too), a read 1 per started 4 KB, half of it when eventually
 * consistent, and never less than one unit (or half) even for an absent item.
 */
const billed = (operation: string, request: Request, before: number, after: number) => {
  if (operation === 'GetItem') {
    const units = Math.max(1, Math.ceil(before / 4096));
    return { read: request.ConsistentRead ? units : units / 2, write: 0 };
  }
  return { read: 0, write: Math.max(1, Math.ceil(Math.max(before, after) / 1024)) };
};

const CONDITION_FAILED = 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException';

/** DynamoDB's item size: attribute names and values in UTF-8 bytes (numbers counted as text). */
export const itemBytes = (item: Item): number =>
  Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value),
    0,
  );

const valueBytes = (value: AttributeValue): number =>
  value.S !== undefined
    ? Buffer.byteLength(value.S)
    : value.N !== undefined
      ? Buffer.byteLength(value.N)
      : value.B !== undefined
        ? Buffer.from(value.B, 'base64').length
        : 3 + itemBytes(value.M ?? {});

interface Request {
  readonly Key?: Item;
  readonly Item?: Item;
  readonly UpdateExpression?: string;
  readonly ExpressionAttributeValues?: Item;
  readonly ConsistentRead?: boolean;
}

const leaseToken = (item: Item | undefined): string | undefined => item?.lease?.M?.token?.S;

export const startFakeDynamoDb = async (options: {
  readonly latencyMs: number;
}): Promise<FakeDynamoDb> => {
  const items = new Map<string, Item>();
  let requests: Record<string, number> = {};
  let breakerRequests = 0;
  let largestItemBytes = 0;
  let ledgerUnits: CapacityUnits = { read: 0, write: 0 };

  const answer = (operation: string, request: Request): [number, unknown] => {
    const key = request.Key?.pk?.S ?? request.Item?.pk?.S ?? '';
    const current = items.get(key);
    const values = request.ExpressionAttributeValues ?? {};
    const failed = (): [number, unknown] => [
      400,
      { __type: CONDITION_FAILED, message: 'The conditional request failed', Item: current },
    ];
    switch (operation) {
      case 'GetItem':
        return [200, current === undefined ? {} : { Item: current }];
      case 'PutItem': {
        // The commit: only the holder of the lease may write.
        if (leaseToken(current) !== values[':token']?.S) return failed();
        const item = request.Item ?? {};
        items.set(key, item);
        largestItemBytes = Math.max(largestItemBytes, itemBytes(item));
        return [200, {}];
      }
      case 'UpdateItem': {
        if (request.UpdateExpression?.startsWith('REMOVE')) {
          if (leaseToken(current) !== values[':token']?.S) return failed();
          const { lease: _released, ...rest } = current ?? {};
          items.set(key, rest);
          return [200, {}];
        }
        // The claim: the lease must be absent or expired.
        const until = Number(current?.lease?.M?.until?.N ?? Number.NEGATIVE_INFINITY);
        if (until >= Number(values[':now']?.N ?? 0)) return failed();
        const lease = values[':lease'];
        const updated: Item = { ...(current ?? { pk: { S: key } }), ...(lease ? { lease } : {}) };
        items.set(key, updated);
        largestItemBytes = Math.max(largestItemBytes, itemBytes(updated));
        return [200, current === undefined ? {} : { Attributes: current }];
      }
      default:
        return [400, { __type: 'UnknownOperationException', message: operation }];
    }
  };

  const server = await startAwsJsonServer(
    'application/x-amz-json-1.0',
    async (target, body, receivedAt) => {
      const operation = target.replace('DynamoDB_20120810.', '');
      const request = JSON.parse(body || '{}') as Request;
      const key = request.Key?.pk?.S ?? request.Item?.pk?.S ?? '';
      const before = itemBytes(items.get(key) ?? {});
      const reply = answer(operation, request);
      if (key.startsWith(BREAKER_KEY_PREFIX)) breakerRequests += 1;
      else {
        requests[operation] = (requests[operation] ?? 0) + 1;
        const units = billed(operation, request, before, itemBytes(items.get(key) ?? {}));
        ledgerUnits = {
          read: ledgerUnits.read + units.read,
          write: ledgerUnits.write + units.write,
        };
      }
      await answerAfter(receivedAt, options.latencyMs);
      return reply;
    },
  );
  return {
    url: server.url,
    latencyMs: options.latencyMs,
    get requests() {
      return requests;
    },
    get breakerRequests() {
      return breakerRequests;
    },
    get largestItemBytes() {
      return largestItemBytes;
    },
    get ledgerUnits() {
      return ledgerUnits;
    },
    reset() {
      items.clear();
      requests = {};
      breakerRequests = 0;
      largestItemBytes = 0;
      ledgerUnits = { read: 0, write: 0 };
    },
    close: () => server.close(),
  };
};
