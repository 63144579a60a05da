import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  classifyProvisioning,
  classifyRealtime,
  MAX_REASON_LENGTH,
} from '../../../lambdas/core/platform/classify';
import type { HttpResult } from '../../../lambdas/core/platform/http';
import { PROVISIONING_RESULTS } from '../../../local/simulator/provisioning-service';
import { PREVIEW_RESULT_STATUSES } from '../../../local/simulator/realtime-service';
import {
  CLASSIFICATION_TABLE,
  classificationTableMarkdown,
} from '../../../scripts/classification-table';
import { named } from '../support/named-rows';

const jsonResponse = (status: number, json: unknown): HttpResult => ({
  kind: 'response',
  status,
  headers: { 'content-type': 'application/json' },
  bodyText: JSON.stringify(json),
  json,
});

const textResponse = (status: number, bodyText: string): HttpResult => ({
  kind: 'response',
  status,
  headers: { 'content-type': 'text/html' },
  bodyText,
});

const envelope = (previewResultStatus: unknown, error: string | null = null) => ({
  platform: 'P',
  companyCode: 'C',
  environment: 'E',
  region: 'us-east-1',
  campaignName: 'Leads',
  previewResult: { previewResultStatus, error },
});

const classifiers = [
  ['realtime', (r: HttpResult) => classifyRealtime(r)],
  ['provisioning', (r: HttpResult) => classifyProvisioning(r)],
] as const;

describe.each(classifiers)('%s: transport and HTTP status', (_service, classify) => {
  it.each(
    named([
      {
        name: 'classifies a timeout as retryable TIMEOUT',
        code: 'TIMEOUT',
        message: 'no complete response within 5000 ms',
        cause: '5000 ms',
      },
      {
        name: 'classifies a connection error as retryable NETWORK_ERROR with its cause',
        code: 'NETWORK_ERROR',
        message: 'fetch failed: ECONNRESET other side closed',
        cause: 'ECONNRESET',
      },
    ] as const),
  )('%s', (_name, { code, message, cause }) => {
    // Prepare
    const result: HttpResult = { kind: 'network-error', code, message };

    // Act
    const outcome = classify(result);

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code, attempts: 1 });
    expect(outcome.message).toContain(cause);
    expect(outcome.httpStatus).toBeUndefined();
  });

  // The platform's reason ends the message; some statuses add a hint at the cause after the code.
  const hints: Record<number, string> = {
    401: ' (endpoint address, X-sc headers or API key rejected)',
    408: ' (request timeout)',
    429: ' (throttled)',
  };
  const retryable = [401, 408, 429, 500, 502, 503, 504, 599].map((status) => ({
    status,
    category: 'retryable',
    body: status === 401 ? { result: 'UNAUTHORIZED', message: 'bad key' } : { error: 'try later' },
  }));
  const permanent = [301, 302, 307, 400, 404, 405, 409, 413, 415, 422].map((status) => ({
    status,
    category: 'permanent',
    body: { message: 'no such thing' },
  }));

  it.each([...retryable, ...permanent])(
    'classifies HTTP $status as $category',
    ({ status, category, body }) => {
      // Prepare
      const result = jsonResponse(status, body);

      // Act
      const outcome = classify(result);

      // Assess
      expect(outcome).toMatchObject({ category, code: `HTTP_${status}`, httpStatus: status });
      const reason = 'message' in body ? body.message : body.error;
      expect(outcome.message).toBe(`HTTP ${status}${hints[status] ?? ''}: ${reason}`);
    },
  );

  it('reads an HTML error page as one line of text without tags', () => {
    // Prepare
    const result = textResponse(
      502,
      '<html><head><style>p{}</style></head><body><h1>502 Bad Gateway</h1>\n<p>upstream down</p></body></html>',
    );

    // Act
    const outcome = classify(result);

    // Assess
    expect(outcome.message).toBe('HTTP 502: 502 Bad Gateway upstream down');
  });

  it(`truncates the platform's reason to ${MAX_REASON_LENGTH} characters`, () => {
    // Prepare
    const result = jsonResponse(400, { error: 'x'.repeat(2000) });

    // Act
    const outcome = classify(result);

    // Assess
    const reason = outcome.message.slice('HTTP 400: '.length);
    expect(reason).toHaveLength(MAX_REASON_LENGTH);
    expect(reason.endsWith('…')).toBe(true);
  });

  it('classifies HTTP 200 with a non-JSON body as retryable MALFORMED_RESPONSE', () => {
    // Prepare
    const result = textResponse(200, '<html>maintenance</html>');

    // Act
    const outcome = classify(result);

    // Assess
    expect(outcome).toMatchObject({
      category: 'retryable',
      code: 'MALFORMED_RESPONSE',
      httpStatus: 200,
    });
    expect(outcome.message).toContain('not JSON');
    expect(outcome.body).toBeUndefined();
  });

  it.each([[null], [[]], ['SUCCESS'], [{}], [{ previewResult: null, result: 7 }]])(
    'classifies HTTP 200 without the envelope (%j) as MALFORMED_RESPONSE',
    (json) => {
      // Prepare
      const result = jsonResponse(200, json);

      // Act
      const outcome = classify(result);

      // Assess
      expect(outcome).toMatchObject({ category: 'retryable', code: 'MALFORMED_RESPONSE' });
    },
  );
});

describe('both classifiers: SUCCESS', () => {
  it.each([
    {
      classifier: 'classifyRealtime',
      classify: classifyRealtime,
      body: envelope('SUCCESS'),
      message: 'previewResultStatus SUCCESS',
    },
    {
      classifier: 'classifyProvisioning',
      classify: classifyProvisioning,
      body: { result: 'SUCCESS', message: 'ok', connectUserId: 'cu-1' },
      message: 'result SUCCESS',
    },
  ])(
    '$classifier classifies SUCCESS as success and keeps the body',
    ({ classify, body, message }) => {
      // Act
      const outcome = classify(jsonResponse(200, body));

      // Assess
      expect(outcome).toEqual({
        category: 'success',
        code: 'SUCCESS',
        message,
        httpStatus: 200,
        body,
        attempts: 1,
      });
    },
  );
});

describe('classifyRealtime: previewResultStatus', () => {
  it.each([
    ['FAILED', 'retryable'],
    ['INVALIDCLIENTID', 'permanent'],
    ['INVALIDRECORDDATAKEY', 'permanent'],
    ['NORECORDFOUND', 'permanent'],
  ] as const)('classifies %s as %s with the error text', (status, category) => {
    // Prepare
    const result = jsonResponse(200, envelope(status, 'reason from platform'));

    // Act
    const outcome = classifyRealtime(result);

    // Assess
    expect(outcome).toMatchObject({ category, code: status, httpStatus: 200 });
    expect(outcome.message).toBe(`previewResultStatus ${status}: reason from platform`);
  });

  it('classifies an unlisted status as permanent UNKNOWN_STATUS saying the spec does not list it', () => {
    // Prepare
    const result = jsonResponse(200, envelope('PENDING', 'queued'));

    // Act
    const outcome = classifyRealtime(result);

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'UNKNOWN_STATUS:PENDING' });
    expect(outcome.message).toContain('spec does not list');
    expect(outcome.message).toContain('queued');
  });

  it('does not mistake inherited object keys for listed statuses', () => {
    // Prepare
    const result = jsonResponse(200, envelope('constructor'));

    // Act
    const outcome = classifyRealtime(result);

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'UNKNOWN_STATUS:constructor' });
  });

  it('treats a non-string previewResultStatus as MALFORMED_RESPONSE', () => {
    // Prepare
    const result = jsonResponse(200, envelope(1));

    // Act
    const outcome = classifyRealtime(result);

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'MALFORMED_RESPONSE' });
  });

  it('requires previewRecordClientData on a search SUCCESS', () => {
    // Prepare
    const without = jsonResponse(200, envelope('SUCCESS'));
    const withRecords = jsonResponse(200, { ...envelope('SUCCESS'), previewRecordClientData: [] });
    const notFound = jsonResponse(200, envelope('NORECORDFOUND', 'no match'));

    // Act
    const outcomes = [without, withRecords, notFound].map((r) =>
      classifyRealtime(r, { expectRecords: true }),
    );

    // Assess
    expect(outcomes.map((o) => o.code)).toEqual(['MALFORMED_RESPONSE', 'SUCCESS', 'NORECORDFOUND']);
  });
});

describe('classifyProvisioning: result', () => {
  it.each([
    ['FAIL', 'retryable'],
    ['UNAUTHORIZED', 'retryable'],
    ['INVALID_TENANT', 'permanent'],
    ['INVALID_ARGUMENTS', 'permanent'],
    ['ALREADY_EXISTS', 'permanent'],
    ['NOT_SUPPORTED', 'permanent'],
    ['NOT_FOUND', 'permanent'],
  ] as const)('classifies %s as %s with the message text', (result, category) => {
    // Prepare
    const response = jsonResponse(200, { result, message: 'reason from platform' });

    // Act
    const outcome = classifyProvisioning(response);

    // Assess
    expect(outcome).toMatchObject({ category, code: result, httpStatus: 200 });
    expect(outcome.message).toBe(`result ${result}: reason from platform`);
  });

  it('classifies an unlisted result as permanent UNKNOWN_STATUS', () => {
    // Prepare
    const response = jsonResponse(200, { result: 'LOCKED', message: 'user locked' });

    // Act
    const outcome = classifyProvisioning(response);

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'UNKNOWN_STATUS:LOCKED' });
    expect(outcome.message).toContain('spec does not list');
  });

  it('accepts a SUCCESS without a message', () => {
    // Prepare
    const response = jsonResponse(200, { result: 'SUCCESS' });

    // Act
    const outcome = classifyProvisioning(response);

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
  });
});

describe('reason text of an HTTP 200 failure', () => {
  it.each([
    [
      'realtime previewResult.error',
      () => classifyRealtime(jsonResponse(200, envelope('FAILED', ` ${'x'.repeat(2000)} `))),
      'previewResultStatus FAILED: ',
    ],
    [
      'provisioning message',
      () => classifyProvisioning(jsonResponse(200, { result: 'FAIL', message: 'x'.repeat(2000) })),
      'result FAIL: ',
    ],
  ])(`cuts the %s to ${MAX_REASON_LENGTH} characters`, (_field, classify, head) => {
    // Act
    const outcome = classify();

    // Assess
    expect(outcome.message.startsWith(head)).toBe(true);
    const reason = outcome.message.slice(head.length);
    expect(reason).toHaveLength(MAX_REASON_LENGTH);
    expect(reason).toBe(`${'x'.repeat(MAX_REASON_LENGTH - 1)}…`);
  });
});

describe('classification table', () => {
  it('lists every code the classifiers produce', () => {
    // Prepare
    const codes = new Set(CLASSIFICATION_TABLE.map((row) => row.code));

    // Act
    const missing = [
      'TIMEOUT',
      'NETWORK_ERROR',
      'HTTP_401',
      'MALFORMED_RESPONSE',
      'UNKNOWN_STATUS:<value>',
      // Every status and result the specs list (the simulator's lists, written from the specs).
      ...PREVIEW_RESULT_STATUSES,
      ...PROVISIONING_RESULTS,
    ].filter((code) => !codes.has(code));

    // Assess
    expect(missing).toEqual([]);
  });

  it('is what docs/classification.md shows', () => {
    // Prepare
    const doc = readFileSync(new URL('../../../docs/classification.md', import.meta.url), 'utf8');

    // Act
    const table = classificationTableMarkdown();

    // Assess
    expect(doc).toContain(table);
  });
});
