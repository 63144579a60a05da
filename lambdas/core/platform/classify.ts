import type { Outcome, OutcomeCategory, PlatformStatus } from '../pipeline/outcome';
import type { HttpResult } from './http';
import type { ProvisioningResponse, RealtimeResponse } from './platform-responses';

/**
 * Generic classification of one HTTP exchange with the platform, from the status tables of
 * both specs. What a status means for one entity (a NOT_FOUND that is an idempotent success,
 * say) is its kind's platform steps' to decide, on top of this (`lambdas/entities/<kind>/`);
 * a read's, its action module's.
 */

/** The platform's reason text is cut here so it fits log lines and SQS message attributes. */
export const MAX_REASON_LENGTH = 500;
const MAX_UNKNOWN_STATUS_LENGTH = 100;

/**
 * Codes that mean "the platform rejected our credentials": the client refreshes the key once,
 * and they stay retryable if the fresh key is rejected too (the secret may not have caught up
 * with a rotation yet). A 403 counts: the specs do not say which status a bad key gets.
 */
export const AUTH_REJECTION_CODES: readonly string[] = ['HTTP_401', 'HTTP_403', 'UNAUTHORIZED'];

/** `previewResultStatus` values the realtime spec lists, and what each means for a retry. */
export const REALTIME_STATUS_CATEGORIES: ReadonlyMap<string, OutcomeCategory> = new Map([
  ['SUCCESS', 'success'],
  ['FAILED', 'retryable'],
  ['INVALIDCLIENTID', 'permanent'],
  ['INVALIDRECORDDATAKEY', 'permanent'],
  ['NORECORDFOUND', 'permanent'],
]);

/** `result` values the provisioning spec lists. */
export const PROVISIONING_RESULT_CATEGORIES: ReadonlyMap<string, OutcomeCategory> = new Map([
  ['SUCCESS', 'success'],
  ['FAIL', 'retryable'],
  ['UNAUTHORIZED', 'retryable'],
  ['INVALID_TENANT', 'permanent'],
  ['INVALID_ARGUMENTS', 'permanent'],
  ['ALREADY_EXISTS', 'permanent'],
  ['NOT_SUPPORTED', 'permanent'],
  ['NOT_FOUND', 'permanent'],
]);

/** HTTP statuses other than 401 that are worth retrying. */
export const isRetryableHttpStatus = (status: number): boolean =>
  status === 408 || status === 429 || (status >= 500 && status <= 599);

type JsonObject = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const truncate = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/** A non-blank string field of a response, trimmed and cut to MAX_REASON_LENGTH. */
const reasonField = (value: JsonObject, key: string): string | undefined => {
  const field = Object.hasOwn(value, key) ? value[key] : undefined;
  if (typeof field !== 'string' || field.trim() === '') return undefined;
  return truncate(field.trim(), MAX_REASON_LENGTH);
};

/** Collapses whitespace and drops HTML tags so an error page reads as one line. */
const plainText = (text: string): string =>
  text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** The platform's own reason text in a failure response, if it gave one. */
const platformReason = (json: unknown, bodyText: string): string | undefined => {
  if (isObject(json)) {
    return (
      reasonField(json, 'error') ??
      reasonField(json, 'message') ??
      (isObject(json.previewResult) ? reasonField(json.previewResult, 'error') : undefined)
    );
  }
  const text = plainText(bodyText);
  return text === '' ? undefined : truncate(text, MAX_REASON_LENGTH);
};

const withReason = (text: string, reason: string | undefined): string =>
  reason === undefined ? text : `${text}: ${reason}`;

const HTTP_MEANINGS: ReadonlyMap<number, string> = new Map([
  [401, 'endpoint address, X-sc headers or API key rejected'],
  [408, 'request timeout'],
  [429, 'throttled'],
]);

type Failure = Outcome<never>;

type NetworkError = Extract<HttpResult, { kind: 'network-error' }>;
type HttpResponse = Extract<HttpResult, { kind: 'response' }>;

const networkFailure = (result: NetworkError): Failure => ({
  category: 'retryable',
  code: result.code,
  message:
    result.code === 'TIMEOUT'
      ? `timeout: ${result.message}`
      : `network error: ${truncate(result.message, MAX_REASON_LENGTH)}`,
  attempts: 1,
});

/** Non-2xx statuses; undefined when the body should be read. */
const httpFailure = (result: HttpResponse): Failure | undefined => {
  const { status } = result;
  if (status >= 200 && status <= 299) return undefined;
  const meaning = HTTP_MEANINGS.get(status);
  const head = meaning === undefined ? `HTTP ${status}` : `HTTP ${status} (${meaning})`;
  return {
    category:
      AUTH_REJECTION_CODES.includes(`HTTP_${status}`) || isRetryableHttpStatus(status)
        ? 'retryable'
        : 'permanent',
    code: `HTTP_${status}`,
    message: withReason(head, platformReason(result.json, result.bodyText)),
    httpStatus: status,
    attempts: 1,
  };
};

const malformed = (status: number, what: string): Failure => ({
  category: 'retryable',
  code: 'MALFORMED_RESPONSE',
  message: `HTTP ${status} but ${what}`,
  httpStatus: status,
  attempts: 1,
});

const statusOutcome = <TBody>(
  field: string,
  status: string,
  reason: string | undefined,
  categories: ReadonlyMap<string, OutcomeCategory>,
  httpStatus: number,
  body: TBody,
): Outcome<TBody> => {
  const category = categories.get(status);
  if (category === undefined) {
    const shown = truncate(status, MAX_UNKNOWN_STATUS_LENGTH);
    return {
      category: 'permanent',
      code: `UNKNOWN_STATUS:${shown}`,
      message: withReason(`${field} "${shown}", which the platform spec does not list`, reason),
      httpStatus,
      body,
      attempts: 1,
    };
  }
  return {
    category,
    // Listed in the categories, so one of the spec's statuses.
    code: status as PlatformStatus,
    message:
      category === 'success' ? `${field} ${status}` : withReason(`${field} ${status}`, reason),
    httpStatus,
    body,
    attempts: 1,
  };
};

export interface RealtimeClassifyOptions {
  /** Search: a SUCCESS body must also carry the `previewRecordClientData` array. */
  readonly expectRecords?: boolean;
}

/** Classifies a realtime-service exchange: HTTP status first, then `previewResult.previewResultStatus`. */
export const classifyRealtime = (
  result: HttpResult,
  options: RealtimeClassifyOptions = {},
): Outcome<RealtimeResponse> => {
  if (result.kind === 'network-error') return networkFailure(result);
  const failure = httpFailure(result);
  if (failure !== undefined) return failure;
  const { json, status: httpStatus } = result;
  if (json === undefined) return malformed(httpStatus, 'the body is not JSON');
  const previewResult = isObject(json) ? json.previewResult : undefined;
  if (!isObject(previewResult) || typeof previewResult.previewResultStatus !== 'string') {
    return malformed(httpStatus, 'the body has no previewResult.previewResultStatus');
  }
  const status = previewResult.previewResultStatus;
  if (status === 'SUCCESS' && options.expectRecords === true) {
    if (!Array.isArray((json as JsonObject).previewRecordClientData)) {
      return malformed(httpStatus, 'the SUCCESS body has no previewRecordClientData array');
    }
  }
  return statusOutcome(
    'previewResultStatus',
    status,
    reasonField(previewResult, 'error'),
    REALTIME_STATUS_CATEGORIES,
    httpStatus,
    // The envelope is checked above; the echoed fields are the platform's and passed on as sent.
    json as unknown as RealtimeResponse,
  );
};

/** Classifies a provisioning-service exchange: HTTP status first, then `result`. */
export const classifyProvisioning = (result: HttpResult): Outcome<ProvisioningResponse> => {
  if (result.kind === 'network-error') return networkFailure(result);
  const failure = httpFailure(result);
  if (failure !== undefined) return failure;
  const { json, status: httpStatus } = result;
  if (json === undefined) return malformed(httpStatus, 'the body is not JSON');
  if (!isObject(json) || typeof json.result !== 'string') {
    return malformed(httpStatus, 'the body has no result string');
  }
  return statusOutcome(
    'result',
    json.result,
    reasonField(json, 'message'),
    PROVISIONING_RESULT_CATEGORIES,
    httpStatus,
    json as unknown as ProvisioningResponse,
  );
};
