import * as z from 'zod';
import { PLATFORM_REGIONS } from '../core/regions';
import {
  ITEM_TIME_ZONE_KEY,
  isAbsoluteHttpUrl,
  isE164,
  isIanaTimeZone,
  isPhoneKey,
  isUrlKey,
  MAX_EPOCH_MILLIS,
} from './rules';

/*
 * Size caps: the specs show no field or request size limits, so we cap conservatively to
 * keep every message well inside SQS's 256 KiB and the platform's unknown limits.
 */
export const MAX_ID_LENGTH = 256;
export const MAX_KEY_LENGTH = 128;
export const MAX_VALUE_LENGTH = 4000;
export const MAX_DATA_ITEMS = 500;

export const nonEmpty = (max = MAX_ID_LENGTH) =>
  z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const correlationId = nonEmpty(128)
  .optional()
  .describe('Optional id that follows the message end to end (logs, dead letters, result events).');

export const campaignName = nonEmpty().describe('Case-sensitive campaign name.');

export const region = z
  .enum(PLATFORM_REGIONS)
  .optional()
  .describe("Region of the campaign; defaults to the deployment's campaign region.");

export const epochMillis = z
  .int('must be an integer number of milliseconds since 1970-01-01 UTC')
  .min(0, 'must not be before 1970-01-01')
  .max(MAX_EPOCH_MILLIS, 'must not be after 9999-12-31');

export const ianaTimeZone = z
  .string()
  .refine(isIanaTimeZone, 'must be an IANA time zone name such as Europe/Berlin');

export const email = z.email('must be an e-mail address').max(MAX_ID_LENGTH);

/** `previewRecordId` / `clientId`: at least one locates the record. */
export const recordLocator = {
  previewRecordId: nonEmpty().optional().describe('Locates the record; wins over clientId.'),
  clientId: nonEmpty().optional().describe('Locates the record when previewRecordId is absent.'),
};

export const requireLocator = (
  value: { previewRecordId?: string | undefined; clientId?: string | undefined },
  ctx: z.RefinementCtx,
): void => {
  if (value.previewRecordId === undefined && value.clientId === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['clientId'],
      message: 'either previewRecordId or clientId is required to locate the record',
    });
  }
};

export const dataItem = z.strictObject({
  key: nonEmpty(MAX_KEY_LENGTH).describe('Name of the data item.'),
  value: z.string().max(MAX_VALUE_LENGTH, `must be at most ${MAX_VALUE_LENGTH} characters`),
  displayOrder: z
    .int('must be an integer')
    .min(1, 'must be greater than zero')
    .max(2_147_483_647)
    .optional(),
});

export type DataItem = z.infer<typeof dataItem>;

/**
 * Rules on record data from the realtime spec's "Specially named data keys": phone keys hold
 * E.164 numbers, `_link`/`_button` keys hold URLs, ItemTimeZone holds a zone name, and keys are
 * unique (the spec does not say which of two equal keys wins, so we refuse to guess).
 */
export const checkRecordData = (items: readonly DataItem[], ctx: z.RefinementCtx): void => {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const path = ['previewRecordData', index, 'value'];
    if (seen.has(item.key)) {
      ctx.addIssue({
        code: 'custom',
        path: ['previewRecordData', index, 'key'],
        message: `duplicate data key "${item.key}"`,
      });
    }
    seen.add(item.key);
    if (isPhoneKey(item.key) && !isE164(item.value)) {
      ctx.addIssue({
        code: 'custom',
        path,
        message: `key "${item.key}" is a phone field and must hold a clean E.164 number such as +14155550100`,
      });
    }
    if (isUrlKey(item.key) && !isAbsoluteHttpUrl(item.value)) {
      ctx.addIssue({
        code: 'custom',
        path,
        message: `key "${item.key}" must hold an absolute http(s) URL`,
      });
    }
    if (item.key === ITEM_TIME_ZONE_KEY && !isIanaTimeZone(item.value)) {
      ctx.addIssue({
        code: 'custom',
        path,
        message: `key "${ITEM_TIME_ZONE_KEY}" must hold an IANA time zone name such as Europe/Berlin`,
      });
    }
  });
};
