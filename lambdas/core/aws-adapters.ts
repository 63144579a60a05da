/**
 * AWS SDK implementations of the ports in `ports.ts`. Clients use the standard SDK
 * configuration only (credential chain, AWS_REGION, `AWS_ENDPOINT_URL_<SERVICE>`), so the same
 * code runs in Lambda and against an emulator. Every constructor accepts a client for tests.
 */

import { ParameterNotFoundError } from '@aws-lambda-powertools/parameters/errors';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';
import { RESULT_EVENT_SOURCE, resultDetailType } from '../actions';
import { KeyReadCoordinator } from './key-read-coordinator';
import {
  type ApiKeySource,
  type DeadLetterReason,
  type DeadLetterSink,
  MAX_API_KEY_MAX_AGE_SECONDS,
  type ResultEvent,
  type ResultPublisher,
} from './ports';

/**
 * SQS is needed only on the failure path (dead letters) and EventBridge only by the two reads,
 * so their SDK modules are loaded on first use instead of adding 15–30 ms to every cold start.
 * Once loaded, the client lives as long as the container, like a module-scope client.
 */
const loadOnce = <T>(load: () => Promise<T>): (() => Promise<T>) => {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined; // a failed load is tried again by the next caller
      throw error;
    });
    return loading;
  };
};

// ---------------------------------------------------------------------------------------------
// API key from Secrets Manager
// ---------------------------------------------------------------------------------------------

export type ApiKeySecretProblem =
  /** The secret (or its current version) does not exist. */
  | 'not-found'
  /** The secret holds binary data, not the key as a string. */
  | 'not-a-string'
  /** The secret string is empty or whitespace. */
  | 'empty'
  /** Secrets Manager could not be asked (network, throttling, access denied, …): see `cause`. */
  | 'unavailable';

/** Reading the API key failed. The message names the secret, never its value. */
export class ApiKeySecretError extends Error {
  override readonly name = 'ApiKeySecretError';
  constructor(
    readonly problem: ApiKeySecretProblem,
    readonly secretId: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface SecretsManagerApiKeySourceOptions {
  /** Name or ARN of the secret whose SecretString is the API key. */
  readonly secretId: string;
  /** Region of the secret; ignored when `client` is given (the client has its own). */
  readonly secretsRegion: string;
  /** Seconds a fetched key is served from cache: an integer from 1 to MAX_API_KEY_MAX_AGE_SECONDS. */
  readonly maxAgeSeconds: number;
  /** For tests (e.g. an emulator endpoint or call-counting middleware). */
  readonly client?: SecretsManagerClient;
}

/**
 * The rotating platform API key, through Powertools Parameters `SecretsProvider` with an
 * explicit `maxAge`. Concurrent callers share one in-flight fetch (single-flight), so a burst of
 * 401s after a rotation costs one `GetSecretValue`.
 *
 * Surrounding whitespace of the secret string is dropped (a key pasted from a file often ends
 * in a newline, which is not a valid header value).
 */
export class SecretsManagerApiKeySource implements ApiKeySource {
  readonly #provider: SecretsProvider;
  readonly #secretId: string;
  readonly #maxAge: number;
  readonly #reads = new KeyReadCoordinator((forceFetch) => this.#read(forceFetch));

  constructor(options: SecretsManagerApiKeySourceOptions) {
    const { maxAgeSeconds } = options;
    if (
      !Number.isInteger(maxAgeSeconds) ||
      maxAgeSeconds < 1 ||
      maxAgeSeconds > MAX_API_KEY_MAX_AGE_SECONDS
    ) {
      throw new RangeError(
        `API key maxAgeSeconds must be an integer from 1 to ${MAX_API_KEY_MAX_AGE_SECONDS}, got ${maxAgeSeconds}`,
      );
    }
    if (options.secretId.trim() === '') throw new RangeError('API key secretId is empty');
    this.#secretId = options.secretId;
    this.#maxAge = maxAgeSeconds;
    this.#provider = options.client
      ? new SecretsProvider({ awsSdkV3Client: options.client })
      : new SecretsProvider({ clientConfig: { region: options.secretsRegion } });
  }

  /** Served from the provider's cache within maxAge; concurrent callers share one read. */
  getKey(): Promise<string> {
    return this.#reads.get();
  }

  refreshKey(rejectedKey: string): Promise<string> {
    return this.#reads.refresh(rejectedKey);
  }

  async #read(forceFetch: boolean): Promise<string> {
    const secretId = this.#secretId;
    let value: string | Uint8Array | undefined;
    try {
      value = await this.#provider.get(secretId, {
        maxAge: this.#maxAge,
        forceFetch,
        throwOnMissing: true,
      });
    } catch (error) {
      if (error instanceof ParameterNotFoundError) {
        throw new ApiKeySecretError(
          'not-found',
          secretId,
          `API key secret "${secretId}" not found`,
        );
      }
      // Powertools wraps the SDK error; its name/message describe the failure, not the value.
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      const reason = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
      throw new ApiKeySecretError(
        'unavailable',
        secretId,
        `API key secret "${secretId}" could not be read (${reason})`,
        { cause },
      );
    }
    if (typeof value !== 'string') {
      throw new ApiKeySecretError(
        'not-a-string',
        secretId,
        `API key secret "${secretId}" holds binary data; it must hold the key as a string`,
      );
    }
    const key = value.trim();
    if (key === '') {
      throw new ApiKeySecretError('empty', secretId, `API key secret "${secretId}" is empty`);
    }
    return key;
  }
}

// ---------------------------------------------------------------------------------------------
// Dead-letter queue
// ---------------------------------------------------------------------------------------------

/** Longest `errorMessage` attribute, in code points; the rest is cut and marked with `…`. */
export const MAX_ERROR_MESSAGE_LENGTH = 1024;
/** Longest value of the other (id-like) attributes, in code points. */
export const MAX_REASON_VALUE_LENGTH = 256;

/**
 * Characters SQS rejects in attribute values: anything outside #x9 | #xA | #xD | #x20–#xD7FF |
 * #xE000–#xFFFD | #x10000–#x10FFFF (lone surrogates are made well-formed before this runs).
 */
const INVALID_SQS_CHARACTERS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** A value SQS accepts: valid characters only, non-empty, at most `maxLength` code points. */
export const sqsAttributeValue = (value: string, maxLength: number): string => {
  const clean = value.toWellFormed().replace(INVALID_SQS_CHARACTERS, '\uFFFD');
  const codePoints = Array.from(clean);
  const bounded =
    codePoints.length > maxLength ? `${codePoints.slice(0, maxLength - 1).join('')}…` : clean;
  // SQS rejects empty String attributes; a placeholder keeps the attribute set complete.
  return bounded === '' ? '(empty)' : bounded;
};

/** The reason as SQS String message attributes (names are the `DeadLetterReason` fields). */
export const deadLetterAttributes = (
  reason: DeadLetterReason,
): Record<keyof DeadLetterReason, MessageAttributeValue> => {
  const attribute = (
    value: string,
    maxLength = MAX_REASON_VALUE_LENGTH,
  ): MessageAttributeValue => ({
    DataType: 'String',
    StringValue: sqsAttributeValue(value, maxLength),
  });
  return {
    action: attribute(reason.action),
    errorCategory: attribute(reason.errorCategory),
    errorCode: attribute(reason.errorCode),
    errorMessage: attribute(reason.errorMessage, MAX_ERROR_MESSAGE_LENGTH),
    sourceMessageId: attribute(reason.sourceMessageId),
    correlationId: attribute(reason.correlationId),
  };
};

export interface SqsDeadLetterSinkOptions {
  /** URL of the action's dead-letter queue (a standard queue). */
  readonly queueUrl: string;
  readonly client?: SQSClient;
}

/** Sends the original body unchanged to the DLQ, with the reason as message attributes. */
export class SqsDeadLetterSink implements DeadLetterSink {
  readonly #queueUrl: string;
  readonly #sdk: () => Promise<{
    readonly client: SQSClient;
    readonly SendMessageCommand: typeof import('@aws-sdk/client-sqs').SendMessageCommand;
  }>;

  constructor(options: SqsDeadLetterSinkOptions) {
    this.#queueUrl = options.queueUrl;
    this.#sdk = loadOnce(async () => {
      const { SQSClient, SendMessageCommand } = await import('@aws-sdk/client-sqs');
      return { client: options.client ?? new SQSClient({}), SendMessageCommand };
    });
  }

  async send(body: string, reason: DeadLetterReason): Promise<void> {
    const { client, SendMessageCommand } = await this.#sdk();
    await client.send(
      new SendMessageCommand({
        QueueUrl: this.#queueUrl,
        MessageBody: body,
        MessageAttributes: deadLetterAttributes(reason),
      }),
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Result events on EventBridge
// ---------------------------------------------------------------------------------------------

/** EventBridge's limit on one PutEvents entry, counted as `putEventsEntrySize` does. */
export const MAX_EVENT_ENTRY_BYTES = 256 * 1024;

/**
 * `detail` of a result event. When the full result would not fit one EventBridge entry, the
 * record list is cut to what fits and `truncated`, `recordCount` (records in the full result)
 * and `includedRecordCount` say so; a consumer that needs everything runs a narrower search.
 * If even an empty list does not fit, `result` and then `request` become null.
 */
export interface ResultEventDetail {
  readonly correlationId: string;
  readonly request: unknown;
  readonly result: unknown;
  readonly truncated?: true;
  readonly recordCount?: number;
  readonly includedRecordCount?: number;
}

/**
 * Size EventBridge charges against the entry limit: UTF-8 bytes of Source, DetailType and
 * Detail (we send neither Time nor Resources).
 */
export const putEventsEntrySize = (source: string, detailType: string, detail: string): number =>
  Buffer.byteLength(source) + Buffer.byteLength(detailType) + Buffer.byteLength(detail);

/** The result's record list: the result itself when an array, else its largest array property. */
const recordList = (
  result: unknown,
): { records: unknown[]; withRecords: (kept: unknown[]) => unknown } | undefined => {
  if (Array.isArray(result)) return { records: result, withRecords: (kept) => kept };
  if (typeof result !== 'object' || result === null) return undefined;
  let largest: { key: string; records: unknown[]; size: number } | undefined;
  for (const [key, value] of Object.entries(result)) {
    if (!Array.isArray(value)) continue;
    const size = JSON.stringify(value).length;
    if (!largest || size > largest.size) largest = { key, records: value, size };
  }
  if (!largest) return undefined;
  const { key, records } = largest;
  return { records, withRecords: (kept) => ({ ...result, [key]: kept }) };
};

/** The JSON `detail` of a result event, truncated to fit one entry (see `ResultEventDetail`). */
export const resultEventDetail = (event: ResultEvent): string => {
  const detailType = resultDetailType(event.action);
  const fits = (detail: string): boolean =>
    putEventsEntrySize(RESULT_EVENT_SOURCE, detailType, detail) <= MAX_EVENT_ENTRY_BYTES;
  const serialise = (detail: ResultEventDetail): string => JSON.stringify(detail);

  const { correlationId, request, result } = event;
  const full = serialise({ correlationId, request, result });
  if (fits(full)) return full;

  const list = recordList(result);
  const recordCount = list?.records.length;
  if (list) {
    const withFirst = (n: number): string =>
      serialise({
        correlationId,
        request,
        result: list.withRecords(list.records.slice(0, n)),
        truncated: true,
        recordCount,
        includedRecordCount: n,
      });
    // Largest n whose detail fits; the full list (n = length) is known not to fit.
    let low = 0;
    let high = list.records.length - 1;
    let best: string | undefined;
    while (low <= high) {
      const mid = Math.floor((low + high) / 2);
      const detail = withFirst(mid);
      if (fits(detail)) {
        best = detail;
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    if (best !== undefined) return best;
  }
  const withoutResult = serialise({
    correlationId,
    request,
    result: null,
    truncated: true,
    recordCount,
  });
  if (fits(withoutResult)) return withoutResult;
  return serialise({ correlationId, request: null, result: null, truncated: true, recordCount });
};

/** PutEvents accepted the call but rejected the entry (it answers HTTP 200 for that). */
export class ResultPublishError extends Error {
  override readonly name = 'ResultPublishError';
  constructor(
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

export interface EventBridgeResultPublisherOptions {
  /** Name or ARN of the result bus. */
  readonly eventBusName: string;
  readonly client?: EventBridgeClient;
}

/** Publishes read results as `<action>.result` events from source `contact-center-sync`. */
export class EventBridgeResultPublisher implements ResultPublisher {
  readonly #eventBusName: string;
  readonly #sdk: () => Promise<{
    readonly client: EventBridgeClient;
    readonly PutEventsCommand: typeof import('@aws-sdk/client-eventbridge').PutEventsCommand;
  }>;

  constructor(options: EventBridgeResultPublisherOptions) {
    this.#eventBusName = options.eventBusName;
    this.#sdk = loadOnce(async () => {
      const { EventBridgeClient, PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
      return { client: options.client ?? new EventBridgeClient({}), PutEventsCommand };
    });
  }

  async publish(event: ResultEvent): Promise<void> {
    const { client, PutEventsCommand } = await this.#sdk();
    const response = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.#eventBusName,
            Source: RESULT_EVENT_SOURCE,
            DetailType: resultDetailType(event.action),
            Detail: resultEventDetail(event),
          },
        ],
      }),
    );
    if ((response.FailedEntryCount ?? 0) > 0) {
      const entry = response.Entries?.find((e) => e.ErrorCode) ?? response.Entries?.[0];
      const code = entry?.ErrorCode ?? 'UnknownError';
      throw new ResultPublishError(
        code,
        `PutEvents rejected the ${resultDetailType(event.action)} event on bus ${this.#eventBusName}: ${code}${
          entry?.ErrorMessage ? ` (${entry.ErrorMessage})` : ''
        }`,
      );
    }
  }
}
