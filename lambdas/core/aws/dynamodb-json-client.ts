/**
 * The three DynamoDB operations the functions use (GetItem, PutItem, UpdateItem), sent as the
 * DynamoDB JSON protocol (`application/x-amz-json-1.0`) over the functions' own `node:http`
 * transport and signed by the AWS SDK's own SigV4 signer. It replaces `@aws-sdk/client-dynamodb`
 * in the bundles: that client's middleware stack, endpoint rules and schema serde cost ~13 ms of
 * every cold start and ~0.3 ms of CPU per request (docs/decisions.md, "Cold start"). Inputs and
 * outputs are the SDK's own shapes: the JSON protocol carries them as they are.
 */
import type {
  GetItemCommandInput,
  GetItemCommandOutput,
  PutItemCommandInput,
  PutItemCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
  UpdateItemCommandInput,
  UpdateItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { type HttpResult, type HttpTransport, postJson } from '../http';
import type { HttpSettings } from '../platform-settings';
import { defaultRetryDeps, type RetryDeps, withRetries } from '../retry';
import type { AwsClientConfig } from './client-config';

/** Each operation's input and output, in the SDK's shapes. */
export interface Operations {
  GetItem: [GetItemCommandInput, Omit<GetItemCommandOutput, '$metadata'>];
  PutItem: [PutItemCommandInput, Omit<PutItemCommandOutput, '$metadata'>];
  UpdateItem: [UpdateItemCommandInput, Omit<UpdateItemCommandOutput, '$metadata'>];
  /** Only the reconcile run and the ops CLI scan (the users the ledger created). */
  Scan: [ScanCommandInput, Omit<ScanCommandOutput, '$metadata'>];
}
export type DynamoDbOperation = keyof Operations;

/**
 * What the ledger table needs of a DynamoDB client: one operation at a time, a refusal thrown
 * as `DynamoDbError`. The bench also measures the SDK's client behind it.
 */
export interface ItemClient {
  send<Op extends DynamoDbOperation>(
    operation: Op,
    input: Operations[Op][0],
  ): Promise<Operations[Op][1]>;
}

/**
 * DynamoDB's answer to a request it refused. `name` is the error code as the SDK names it
 * (`ConditionalCheckFailedException`, …); `item` is the item a refused condition returned
 * (`ReturnValuesOnConditionCheckFailure: ALL_OLD`).
 */
export class DynamoDbError extends Error {
  readonly retryable: boolean;
  readonly statusCode: number | undefined;
  readonly item: Operations['GetItem'][1]['Item'];

  constructor(
    name: string,
    message: string,
    details: { retryable: boolean; statusCode?: number; item?: DynamoDbError['item'] },
  ) {
    super(message);
    this.name = name;
    this.retryable = details.retryable;
    this.statusCode = details.statusCode;
    this.item = details.item;
  }
}

/** The SDK's throttling and transient error codes (`@smithy/core/retry`), as DynamoDB sends them. */
const RETRYABLE_CODES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  'LimitExceededException',
  'RequestThrottled',
  'InternalServerError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/**
 * As the SDK's DynamoDB client: 4 attempts (its default for DynamoDB) with full-jitter backoff
 * from 100 ms. Unlike it, each attempt times out (5 s): the SDK's 5-minute socket timeout could
 * hold a record until the function's own timeout.
 */
export const DYNAMODB_HTTP_SETTINGS: HttpSettings = {
  requestTimeoutMs: 5000,
  maxAttempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 2000,
};

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The endpoint the SDK would choose for this region without FIPS or dual-stack: the standard
 * `AWS_ENDPOINT_URL_DYNAMODB` / `AWS_ENDPOINT_URL` variables first, then the regional endpoint of
 * the region's partition. FIPS and dual-stack endpoints are refused rather than silently skipped.
 */
export const dynamoDbEndpoint = (region: string, env: Environment = process.env): string => {
  const configured = env.AWS_ENDPOINT_URL_DYNAMODB ?? env.AWS_ENDPOINT_URL;
  if (configured) return configured;
  for (const setting of ['AWS_USE_FIPS_ENDPOINT', 'AWS_USE_DUALSTACK_ENDPOINT']) {
    if (env[setting]?.toLowerCase() === 'true') {
      throw new Error(
        `${setting}=true is not supported for the ledger table; set AWS_ENDPOINT_URL_DYNAMODB to the endpoint instead`,
      );
    }
  }
  return `https://dynamodb.${region}.${dnsSuffix(region)}`;
};

const dnsSuffix = (region: string): string => {
  if (region.startsWith('cn-')) return 'amazonaws.com.cn';
  if (region.startsWith('us-isob-')) return 'sc2s.sgov.gov';
  if (region.startsWith('us-iso-')) return 'c2s.ic.gov';
  return 'amazonaws.com';
};

export interface DynamoDbJsonClientOptions extends Omit<AwsClientConfig, 'region'> {
  /**
   * The region, or how to find it (the operator CLI asks an SDK client, which reads profiles).
   * @default AWS_REGION, else AWS_DEFAULT_REGION
   */
  readonly region?: string | (() => Promise<string>);
  /** @default `AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL`, else the region's endpoint */
  readonly endpoint?: string;
  /** @default the functions' `node:http` transport */
  readonly transport?: HttpTransport;
  /** @default DYNAMODB_HTTP_SETTINGS */
  readonly http?: HttpSettings;
  /** @default real time and randomness */
  readonly retryDeps?: RetryDeps;
}

export class DynamoDbJsonClient implements ItemClient {
  readonly #url: () => Promise<URL>;
  readonly #signer: SignatureV4;
  readonly #transport: HttpTransport;
  readonly #http: HttpSettings;
  readonly #deps: RetryDeps;

  constructor(options: DynamoDbJsonClientOptions = {}) {
    const given = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    if (!given) throw new Error('DynamoDB client: no region (set AWS_REGION)');
    const region = typeof given === 'string' ? async () => given : given;
    const urlIn = (name: string) => new URL(options.endpoint ?? dynamoDbEndpoint(name));
    if (typeof given === 'string') {
      // Known now: a bad endpoint setting fails the cold start, naming the variable.
      const url = Promise.resolve(urlIn(given));
      this.#url = () => url;
    } else {
      let url: Promise<URL> | undefined;
      this.#url = () => {
        url ??= region()
          .then(urlIn)
          .catch((error: unknown) => {
            url = undefined; // a failed look-up is asked again on the next call
            throw error;
          });
        return url;
      };
    }
    this.#signer = new SignatureV4({
      service: 'dynamodb',
      region,
      credentials: options.credentials ?? defaultProvider(),
      sha256: Sha256,
    });
    this.#transport = options.transport ?? postJson;
    this.#http = options.http ?? DYNAMODB_HTTP_SETTINGS;
    this.#deps = options.retryDeps ?? defaultRetryDeps;
  }

  /** Sends one operation; throws `DynamoDbError` for a refusal, `Error` for a transport failure. */
  async send<Op extends DynamoDbOperation>(
    operation: Op,
    input: Operations[Op][0],
  ): Promise<Operations[Op][1]> {
    const body = JSON.stringify(input);
    const url = await this.#url();
    const outcome = await withRetries(
      async (budget) => {
        const result = await this.#transport({
          url: url.href,
          headers: await this.#signedHeaders(url, operation, body),
          body,
          timeoutMs: budget.timeoutMs,
        });
        const value = answerOf(result);
        return { value, retryable: value instanceof Error && isRetryable(value) };
      },
      this.#http,
      this.#deps,
    );
    if (outcome === undefined) throw new Error(`DynamoDB ${operation}: no attempt was made`);
    if (outcome instanceof Error) throw outcome;
    return outcome as Operations[Op][1];
  }

  /** Signed per attempt: a retry gets a fresh date (SigV4 signatures expire after 5 minutes). */
  async #signedHeaders(
    url: URL,
    operation: DynamoDbOperation,
    body: string,
  ): Promise<Record<string, string>> {
    const signed = await this.#signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
      },
      body,
    });
    return signed.headers;
  }
}

const isRetryable = (error: Error): boolean => !(error instanceof DynamoDbError) || error.retryable;

/** The parsed output, or the error it stands for (returned, so the retry loop can judge it). */
const answerOf = (result: HttpResult): unknown => {
  if (result.kind === 'network-error') {
    return new Error(`DynamoDB request failed: ${result.code} ${result.message}`);
  }
  if (result.status === 200) {
    // Never read a garbled answer as "no item": the ledger would take a known entity for new.
    if (typeof result.json !== 'object' || result.json === null) {
      return new Error(
        `DynamoDB answered 200 without a JSON object (${result.bodyText.length} bytes)`,
      );
    }
    return result.json;
  }
  const json = (result.json ?? {}) as Record<string, unknown>;
  // `__type` is `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException`.
  const type = typeof json.__type === 'string' ? json.__type : '';
  const name = type.slice(type.indexOf('#') + 1) || `HTTP${result.status}`;
  const message = json.message ?? json.Message;
  return new DynamoDbError(name, typeof message === 'string' ? message : name, {
    retryable: result.status >= 500 || RETRYABLE_CODES.has(name),
    statusCode: result.status,
    item: json.Item as DynamoDbError['item'],
  });
};
