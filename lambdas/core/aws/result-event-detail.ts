import type { ResultEvent } from '../entry/ports';
import { RESULT_EVENT_SOURCE, resultDetailType } from '../observability/identity';

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
