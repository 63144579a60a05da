import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DynamoDBClient,
  type DynamoDBClientConfig,
  GetItemCommand,
  PutItemCommand,
  type PutItemCommandInput,
  paginateScan,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { AWS_REQUEST_LIMITS } from './client-config';

export type LedgerItem = Record<string, AttributeValue>;

export interface LedgerTableOptions {
  /** The ledger table (partition key `pk`, TTL attribute `expiresAt`). */
  readonly tableName: string;
  /** Shared by the stores of one function. @default `ledgerTableClient()` */
  readonly client?: DynamoDBClient;
}

/**
 * The SDK's DynamoDB client as the functions use it: the SDK's own endpoints (the standard
 * `AWS_ENDPOINT_URL_DYNAMODB`, FIPS and dual-stack settings), retries and credentials, with the
 * attempt time limits of every client even when built without a function's settings.
 */
export const ledgerTableClient = (config: DynamoDBClientConfig = {}): DynamoDBClient => {
  // cacheMiddleware: the SDK otherwise builds each command's middleware chain anew on every
  // request, and every message makes two; nothing changes this client's stack after the line
  // below (bench/README.md, "What the numbers say").
  const client = new DynamoDBClient({
    requestHandler: AWS_REQUEST_LIMITS,
    cacheMiddleware: true,
    ...config,
  });
  // Given no logger, the SDK still runs its loggerMiddleware, which copies every input and
  // output through the log filters for a no-op logger: the ledger's item twice a request, for
  // nothing (about 1 ms of a warm batch of 10, bench/README.md). A given logger keeps it.
  if (config.logger === undefined) client.middlewareStack.remove('loggerMiddleware');
  return client;
};

/**
 * A conditional write's answer. A refused condition is an answer, not an error: `item` is then
 * the item as it was, when the write asked for it (`ReturnValuesOnConditionCheckFailure`).
 */
export interface TableWrite {
  readonly done: boolean;
  readonly item: LedgerItem | undefined;
}

export const numberValue = (value: number): AttributeValue => ({ N: String(value) });

/** The `expiresAt` value (TTL, epoch seconds) of an item written at `nowMs`. */
export const expiresAfter = (nowMs: number, seconds: number): AttributeValue =>
  numberValue(Math.floor(nowMs / 1000) + seconds);

/**
 * The one table every shared item lives in: entity ledger, breakers, census, brakes. The
 * functions may only get, put and update items (IAM); the reconcile run and the ops CLI may
 * also scan.
 */
export class LedgerTable {
  readonly #name: string;
  readonly #client: DynamoDBClient;

  constructor(options: LedgerTableOptions) {
    this.#name = options.tableName;
    this.#client = options.client ?? ledgerTableClient();
  }

  async get(pk: string, consistent = false): Promise<LedgerItem | undefined> {
    const answer = await this.#client.send(
      new GetItemCommand({
        TableName: this.#name,
        Key: { pk: { S: pk } },
        ConsistentRead: consistent,
      }),
    );
    return answer.Item;
  }

  update(
    pk: string,
    input: Omit<UpdateItemCommandInput, 'TableName' | 'Key'>,
  ): Promise<TableWrite> {
    const update = { TableName: this.#name, Key: { pk: { S: pk } }, ...input };
    return refusedIsAnAnswer(this.#client.send(new UpdateItemCommand(update)));
  }

  /**
   * Every item whose key starts with `prefix`, page by page (a Scan: only the reconcile run and
   * the ops CLI may, IAM; the functions never list).
   */
  async *scan(prefix: string): AsyncIterable<LedgerItem> {
    const pages = paginateScan(
      { client: this.#client },
      {
        TableName: this.#name,
        FilterExpression: 'begins_with(pk, :prefix)',
        ExpressionAttributeValues: { ':prefix': { S: prefix } },
      },
    );
    for await (const page of pages) yield* page.Items ?? [];
  }

  /** PutItem of a whole item; a refused condition answers `done: false`. */
  put(item: LedgerItem, input: Omit<PutItemCommandInput, 'TableName' | 'Item'>) {
    const put = { TableName: this.#name, Item: item, ...input };
    return refusedIsAnAnswer(this.#client.send(new PutItemCommand(put)));
  }
}

const refusedIsAnAnswer = async (
  write: Promise<{ readonly Attributes?: LedgerItem | undefined }>,
): Promise<TableWrite> => {
  try {
    return { done: true, item: (await write).Attributes };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { done: false, item: error.Item };
    throw error;
  }
};
