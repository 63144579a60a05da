/**
 * The classification table of docs/classification.md as data. It lives outside lambdas/ so
 * that no handler bundle carries documentation text; a unit test checks that the doc shows
 * exactly this table and that the classifiers in lambdas/core/platform/classify.ts agree with it.
 */

import type { OutcomeCategory } from '../lambdas/core/pipeline/outcome';
import {
  PROVISIONING_RESULT_CATEGORIES,
  REALTIME_STATUS_CATEGORIES,
} from '../lambdas/core/platform/classify';

export interface ClassificationRow {
  readonly condition: string;
  readonly category: OutcomeCategory;
  readonly code: string;
  readonly note: string;
}

const STATUS_NOTES: ReadonlyMap<string, string> = new Map([
  ['realtime:SUCCESS', 'action done'],
  ['realtime:FAILED', 'reason in `error`; bounded by maxAttempts, then SQS redelivery'],
  ['realtime:INVALIDCLIENTID', 'no `clientId` supplied'],
  ['realtime:INVALIDRECORDDATAKEY', 'a data key equals the `clientIdFieldName` in effect'],
  [
    'realtime:NORECORDFOUND',
    "the record family's platform steps read it per step (e.g. a delete of a record already gone)",
  ],
  ['provisioning:SUCCESS', 'request succeeded'],
  ['provisioning:FAIL', 'reason in `message`; bounded by maxAttempts, then SQS redelivery'],
  [
    'provisioning:UNAUTHORIZED',
    'treated like HTTP 401: one key refresh and one retry first; retryable if it persists',
  ],
  ['provisioning:INVALID_TENANT', 'the `tenant` from deployment config does not match'],
  ['provisioning:INVALID_ARGUMENTS', 'the platform rejected the message fields'],
  [
    'provisioning:NOT_SUPPORTED',
    'e.g. an environment on the internal user directory (the spec supports SAML / linked directories only)',
  ],
  [
    'provisioning:ALREADY_EXISTS',
    "the user's platform steps read it (an add of a user already there: ours, or someone else's)",
  ],
  [
    'provisioning:NOT_FOUND',
    "query-user-existence reads it as an answer; the user's platform steps as a delete of a user already gone",
  ],
]);

/** The table the classifiers implement, as data (docs/classification.md is checked against it). */
export const CLASSIFICATION_TABLE: readonly ClassificationRow[] = [
  {
    condition: 'request timeout (no complete response in time)',
    category: 'retryable',
    code: 'TIMEOUT',
    note: 'both services',
  },
  {
    condition: 'connection refused / reset / DNS or TLS failure',
    category: 'retryable',
    code: 'NETWORK_ERROR',
    note: 'both services',
  },
  {
    condition: 'HTTP 401',
    category: 'retryable',
    code: 'HTTP_401',
    note: 'the client refreshes the API key once and retries once; this is the result when that retry gets 401 again',
  },
  {
    condition: 'HTTP 403',
    category: 'retryable',
    code: 'HTTP_403',
    note: 'treated like HTTP 401 (the specs do not say which status a rejected key gets): one key refresh and one retry first; retryable if it persists',
  },
  {
    condition: 'HTTP 408, 429, 500–599',
    category: 'retryable',
    code: 'HTTP_<status>',
    note: '`Retry-After` is honoured: up to maxDelayMs slept in the function, longer as the SQS visibility of the message',
  },
  {
    condition: 'any other HTTP status outside 2xx (3xx, 400, 404, 405, 413, 415, …)',
    category: 'permanent',
    code: 'HTTP_<status>',
    note: 'redirects are not followed, so the API key never goes to another host',
  },
  {
    condition: 'HTTP 2xx whose body is not JSON or lacks the envelope',
    category: 'retryable',
    code: 'MALFORMED_RESPONSE',
    note: 'realtime: `previewResult.previewResultStatus` string (search SUCCESS also needs a `previewRecordClientData` array); provisioning: `result` string',
  },
  ...[...REALTIME_STATUS_CATEGORIES].map(([status, category]) => ({
    condition: `realtime \`previewResultStatus\` ${status}`,
    category,
    code: status,
    note: STATUS_NOTES.get(`realtime:${status}`) ?? '',
  })),
  ...[...PROVISIONING_RESULT_CATEGORIES].map(([result, category]) => ({
    condition: `provisioning \`result\` ${result}`,
    category,
    code: result,
    note: STATUS_NOTES.get(`provisioning:${result}`) ?? '',
  })),
  {
    condition: 'any other status / result string',
    category: 'permanent',
    code: 'UNKNOWN_STATUS:<value>',
    note: 'the spec does not list it, so retrying cannot be known to help',
  },
];

/** The table as Markdown, for docs and README generation. */
export const classificationTableMarkdown = (): string =>
  [
    '| condition | category | code | note |',
    '|---|---|---|---|',
    ...CLASSIFICATION_TABLE.map(
      (row) => `| ${row.condition} | ${row.category} | \`${row.code}\` | ${row.note} |`,
    ),
  ].join('\n');
