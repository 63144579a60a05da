/**
 * The pure parts of the AWS adapters: attribute sanitising, result-event truncation and
 * constructor validation. Behaviour against AWS is in test/integration/aws-adapters.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { RESULT_EVENT_SOURCE } from '../../lambdas/actions';
import {
  deadLetterAttributes,
  MAX_ERROR_MESSAGE_LENGTH,
  MAX_EVENT_ENTRY_BYTES,
  putEventsEntrySize,
  type ResultEventDetail,
  resultEventDetail,
  SecretsManagerApiKeySource,
  sqsAttributeValue,
} from '../../lambdas/core/aws';
import type { ResultEvent } from '../../lambdas/core/entry/ports';
import { REASON_ATTRIBUTES } from '../support/dead-letter-reason';

const DETAIL_TYPE = 'search-campaign-records.result';
const entrySize = (detail: string): number =>
  putEventsEntrySize(RESULT_EVENT_SOURCE, DETAIL_TYPE, detail);

const searchEvent = (result: unknown, request: unknown = { clientId: 'c-1' }): ResultEvent => ({
  action: 'search-campaign-records',
  correlationId: 'corr-1',
  request,
  result,
});

const records = (count: number, size = 500) =>
  Array.from({ length: count }, (_, i) => ({ previewRecordId: `r-${i}`, data: 'd'.repeat(size) }));

describe('sqsAttributeValue', () => {
  it('keeps a valid value as it is', () => {
    // Prepare
    const value = 'Zoë\ttabs\nand emoji 👩‍💻';

    // Act
    const result = sqsAttributeValue(value, 100);

    // Assess
    expect(result).toBe(value);
  });

  it('replaces characters SQS rejects, including lone surrogates', () => {
    // Prepare
    const value = 'a\u0000b\u001Fc\uFFFEd\uDC00e';

    // Act
    const result = sqsAttributeValue(value, 100);

    // Assess
    expect(result).toBe('a\uFFFDb\uFFFDc\uFFFDd\uFFFDe');
  });

  it('cuts by code points without splitting a surrogate pair and marks the cut', () => {
    // Prepare
    const value = '😀'.repeat(20);

    // Act
    const result = sqsAttributeValue(value, 10);

    // Assess
    expect(result).toBe(`${'😀'.repeat(9)}…`);
    expect(result.isWellFormed()).toBe(true);
  });

  it('turns an empty value into a placeholder', () => {
    // Prepare
    const value = '';

    // Act
    const result = sqsAttributeValue(value, 10);

    // Assess
    expect(result).toBe('(empty)');
  });
});

describe('deadLetterAttributes', () => {
  it('gives all six reason fields as String attributes, the message bounded', () => {
    // Prepare
    const reason = {
      action: 'delete-user',
      errorCategory: 'retryable',
      errorCode: 'HTTP_503',
      errorMessage: 'm'.repeat(MAX_ERROR_MESSAGE_LENGTH + 10),
      sourceMessageId: 'msg-1',
      correlationId: 'corr-1',
    } as const;

    // Act
    const attributes = deadLetterAttributes(reason);

    // Assess
    expect(Object.keys(attributes).sort()).toEqual([...REASON_ATTRIBUTES]);
    expect(Object.values(attributes).every((a) => a.DataType === 'String')).toBe(true);
    expect(attributes.errorCategory.StringValue).toBe('retryable');
    expect(attributes.errorMessage.StringValue).toHaveLength(MAX_ERROR_MESSAGE_LENGTH);
  });
});

describe('resultEventDetail', () => {
  it('sends correlation id, request and result unchanged when they fit', () => {
    // Prepare
    const event = searchEvent({ status: 'SUCCESS', records: records(3) });

    // Act
    const detail = JSON.parse(resultEventDetail(event));

    // Assess
    expect(detail).toEqual({
      correlationId: 'corr-1',
      request: event.request,
      result: event.result,
    });
  });

  it('keeps the first records that fit when the result is an array', () => {
    // Prepare
    const all = records(1000);
    const event = searchEvent(all);

    // Act
    const text = resultEventDetail(event);

    // Assess
    const detail = JSON.parse(text) as ResultEventDetail & { result: unknown[] };
    expect(entrySize(text)).toBeLessThanOrEqual(MAX_EVENT_ENTRY_BYTES);
    expect(detail.truncated).toBe(true);
    expect(detail.recordCount).toBe(1000);
    expect(detail.result).toEqual(all.slice(0, detail.includedRecordCount));
    // One more record would not have fitted.
    const oneMore = JSON.stringify({
      ...detail,
      result: all.slice(0, (detail.includedRecordCount ?? 0) + 1),
      includedRecordCount: (detail.includedRecordCount ?? 0) + 1,
    });
    expect(entrySize(oneMore)).toBeGreaterThan(MAX_EVENT_ENTRY_BYTES);
  });

  it('cuts the largest array of an object result and keeps its other fields', () => {
    // Prepare
    const event = searchEvent({ status: 'SUCCESS', warnings: ['w'], records: records(1000) });

    // Act
    const text = resultEventDetail(event);

    // Assess
    const detail = JSON.parse(text);
    expect(entrySize(text)).toBeLessThanOrEqual(MAX_EVENT_ENTRY_BYTES);
    expect(detail).toMatchObject({
      truncated: true,
      recordCount: 1000,
      result: { status: 'SUCCESS', warnings: ['w'] },
    });
    expect(detail.result.records).toHaveLength(detail.includedRecordCount);
  });

  it('drops a result without records to cut, then the request, to stay within the limit', () => {
    // Prepare
    const hugeText = 'z'.repeat(MAX_EVENT_ENTRY_BYTES);
    const bigResult = searchEvent({ blob: hugeText });
    const bigRequest = searchEvent({ blob: hugeText }, { blob: hugeText });

    // Act
    const withoutResult = JSON.parse(resultEventDetail(bigResult));
    const withoutBoth = JSON.parse(resultEventDetail(bigRequest));

    // Assess
    expect(withoutResult).toEqual({
      correlationId: 'corr-1',
      request: { clientId: 'c-1' },
      result: null,
      truncated: true,
    });
    expect(withoutBoth).toEqual({
      correlationId: 'corr-1',
      request: null,
      result: null,
      truncated: true,
    });
  });

  it('counts multi-byte characters as UTF-8 bytes', () => {
    // Prepare: 2 bytes per 'é', so the character count alone would look small enough.
    const event = searchEvent(records(400, 400).map((r) => ({ ...r, data: 'é'.repeat(400) })));

    // Act
    const text = resultEventDetail(event);

    // Assess
    expect(text.length).toBeLessThan(MAX_EVENT_ENTRY_BYTES);
    expect(entrySize(text)).toBeLessThanOrEqual(MAX_EVENT_ENTRY_BYTES);
    expect(JSON.parse(text).truncated).toBe(true);
  });
});

describe('SecretsManagerApiKeySource options', () => {
  it.each([0, 3601, 1.5, Number.NaN])('rejects maxAgeSeconds %s', (maxAgeSeconds) => {
    // Prepare
    const options = { secretId: 'api-key', secretsRegion: 'eu-west-1', maxAgeSeconds };

    // Act
    const create = () => new SecretsManagerApiKeySource(options);

    // Assess
    expect(create).toThrow(/maxAgeSeconds must be an integer from 1 to 3600/);
  });

  it.each([1, 3600])('accepts maxAgeSeconds %s', (maxAgeSeconds) => {
    // Prepare
    const options = { secretId: 'api-key', secretsRegion: 'eu-west-1', maxAgeSeconds };

    // Act
    const create = () => new SecretsManagerApiKeySource(options);

    // Assess
    expect(create).not.toThrow();
  });
});
