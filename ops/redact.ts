/**
 * A short preview of a message body that shows its shape without its personal data: field
 * names stay, string values are masked except for a few fields that only ever hold routing or
 * bookkeeping values (never names, phone numbers or e-mail addresses).
 */
import { counted } from './counted';

/** String fields shown as they are: ids of the integration and routing values. */
const SHOWN_STRING_FIELDS = new Set([
  'correlationId',
  'campaignName',
  'region',
  'previewRecordStateEnum',
  'transferToCampaign',
  'clientIdFieldName',
  'condition',
  // A data item's key names the field (`phone1`), its value holds the data.
  'key',
  'detail-type',
  'source',
  'id',
]);

export const MASK = '***';
/** Longest preview, in characters; longer ones end with `…`. */
export const PREVIEW_LENGTH = 160;

const mask = (value: unknown, field: string | undefined): unknown => {
  if (typeof value === 'string') {
    return field !== undefined && SHOWN_STRING_FIELDS.has(field) ? value : MASK;
  }
  if (Array.isArray(value)) return value.map((item) => mask(item, undefined));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mask(item, key)]));
  }
  // Numbers, booleans and null are times, orders and flags.
  return value;
};

/** The masked body as compact JSON, cut to `PREVIEW_LENGTH`; a non-JSON body shows only its size. */
export const redactedPreview = (body: string): string => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(body);
  } catch {
    return `(not JSON, ${counted(Buffer.byteLength(body), 'byte')})`;
  }
  const text = JSON.stringify(mask(decoded, undefined));
  const points = Array.from(text);
  return points.length > PREVIEW_LENGTH ? `${points.slice(0, PREVIEW_LENGTH - 1).join('')}…` : text;
};
