import * as z from 'zod/mini';
import { PLATFORM_REGIONS } from '../core/platform/regions';
import '../core/pipeline/zod-locale';
import {
  DEFAULT_CLIENT_ID_FIELD_NAME,
  ITEM_TIME_ZONE_KEY,
  isAbsoluteHttpUrl,
  isE164,
  isIanaTimeZone,
  isPhoneKey,
  isUrlKey,
  MAX_EPOCH_MILLIS,
  SKILL_QUEUE_KEY,
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
  z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(max, `must be at most ${max} characters`),
    );

export const correlationId = z
  .optional(nonEmpty(128))
  .check(
    z.describe(
      'Optional id that follows the message end to end (logs, dead letters, result events).',
    ),
  );

export const occurredAt = z
  .optional(
    z.iso.datetime({
      precision: 3,
      error: 'must be an RFC 3339 UTC time with milliseconds, such as 2026-11-24T09:30:00.000Z',
    }),
  )
  .check(
    z.describe(
      'When the change happened at the source (a CRM last-modified time, an HR effective time), UTC with milliseconds. Orders the events of one record or user: an event older than what the platform already holds is skipped. Send it: without it the EventBridge event time, then the SQS send time is used.',
    ),
  );

/** The ledger keys an entity's state by campaign name: `__proto__` is no key in a JS object. */
const keyableCampaign = z.refine(
  (name: unknown) => name !== '__proto__',
  'must not be "__proto__" (not a campaign name the ledger can keep)',
);

export const campaignName = nonEmpty().check(
  keyableCampaign,
  z.describe('Case-sensitive campaign name.'),
);

/** A campaign a record moves to: a campaign name like any other. */
export const destinationCampaign = nonEmpty().check(
  keyableCampaign,
  z.describe('Case-sensitive destination campaign.'),
);

export const region = z
  .optional(z.enum(PLATFORM_REGIONS, { error: `must be one of ${PLATFORM_REGIONS.join(', ')}` }))
  .check(z.describe("Region of the campaign; defaults to the deployment's campaign region."));

export const epochMillis = z
  .int('must be an integer number of milliseconds since 1970-01-01 UTC')
  .check(
    z.minimum(0, 'must not be before 1970-01-01'),
    z.maximum(MAX_EPOCH_MILLIS, 'must not be after 9999-12-31'),
  );

export const ianaTimeZone = z
  .string()
  .check(
    z.maxLength(64, 'must be at most 64 characters'),
    z.refine(isIanaTimeZone, 'must be an IANA time zone name such as Europe/Berlin'),
  );

export const email = z.email('must be an e-mail address').check(z.maxLength(MAX_ID_LENGTH));

/**
 * A check across fields that runs even when other fields already failed (zod skips a plain
 * `superRefine` once any issue exists), so a producer learns every problem in one reply.
 * `needs` parses only the fields the check reads; when those are unusable the check is skipped,
 * because their own issues already explain the failure.
 */
export const crossFieldCheck = <T>(
  needs: z.ZodMiniType<T>,
  check: (value: T, ctx: z.core.$RefinementCtx) => void,
): z.core.$ZodCheck<unknown> =>
  z.superRefine<unknown>(
    (value, ctx) => {
      const parsed = needs.safeParse(value);
      if (parsed.success) check(parsed.data, ctx);
    },
    { when: () => true },
  );

/** `previewRecordId` / `clientId`: at least one locates the record. */
export const recordLocator = {
  previewRecordId: z
    .optional(nonEmpty())
    .check(z.describe('Locates the record; wins over clientId.')),
  clientId: z
    .optional(nonEmpty())
    .check(z.describe('Locates the record when previewRecordId is absent.')),
};

/**
 * What every message about one existing record starts with: the sender's ids, the campaign and
 * the record's locator. `campaign` describes the campaign field where an action means more.
 */
export const recordAddress = (campaign = campaignName) => ({
  correlationId,
  occurredAt,
  campaignName: campaign,
  region,
  ...recordLocator,
});

const optionalNextWork = z.optional(epochMillis);

/**
 * The routing fields a write may set on an existing record, all optional. `nextWork` describes
 * `nextEarliestWorkTimeUTC` where an action has a rule on it.
 */
export const recordRouting = (nextWork = optionalNextWork) => ({
  skillQueue: z.optional(nonEmpty()),
  preferredAgent: z
    .optional(z.string().check(z.maxLength(256)))
    .check(z.describe('Empty string clears the preference.')),
  nextEarliestWorkTimeUTC: nextWork,
  timeZone: z.optional(ianaTimeZone),
});

/** The request properties `recordRouting` adds, in the order the body carries them. */
export const RECORD_ROUTING_FIELDS = [
  'skillQueue',
  'preferredAgent',
  'nextEarliestWorkTimeUTC',
  'timeZone',
] as const satisfies readonly (keyof ReturnType<typeof recordRouting>)[];

/** Either id locates the record; checked even when other fields failed. */
export const requireLocator = crossFieldCheck(
  z.object({ previewRecordId: z.optional(z.unknown()), clientId: z.optional(z.unknown()) }),
  (value, ctx) => {
    if (value.previewRecordId === undefined && value.clientId === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['clientId'],
        message: 'either previewRecordId or clientId is required to locate the record',
      });
    }
  },
);

/**
 * Rules on one data item from the realtime spec's "Specially named data keys": phone keys hold
 * E.164 numbers, `_link`/`_button` keys hold URLs, ItemTimeZone holds a zone name. They need only
 * the item itself, so they sit on the item and run even when the rest of the message failed.
 * Messages name the key, never the value: values are personal data and end up in logs.
 */
const checkDataItemValue = crossFieldCheck(
  z.object({ key: z.string(), value: z.string() }),
  ({ key, value }, ctx) => {
    // A fresh path per issue: zod prefixes paths in place, so a shared array would be prefixed twice.
    const path = () => ['value'];
    if (isPhoneKey(key) && !isE164(value)) {
      ctx.addIssue({
        code: 'custom',
        path: path(),
        message: `key "${key}" is a phone field and must hold a clean E.164 number such as +14155550100`,
      });
    }
    if (isUrlKey(key) && !isAbsoluteHttpUrl(value)) {
      ctx.addIssue({
        code: 'custom',
        path: path(),
        message: `key "${key}" must hold an absolute http(s) URL such as https://example.com/page`,
      });
    }
    if (key === SKILL_QUEUE_KEY && value.trim() === '') {
      // The platform can only answer FAILED, which would be retried until the last receive.
      ctx.addIssue({
        code: 'custom',
        path: path(),
        message: `key "${SKILL_QUEUE_KEY}" must name a skill queue (leave the item out for the campaign's default)`,
      });
    }
    if (key === ITEM_TIME_ZONE_KEY && !isIanaTimeZone(value)) {
      ctx.addIssue({
        code: 'custom',
        path: path(),
        message: `key "${ITEM_TIME_ZONE_KEY}" must hold an IANA time zone name such as Europe/Berlin`,
      });
    }
  },
);

export const dataItem = z
  .strictObject({
    key: nonEmpty(MAX_KEY_LENGTH).check(z.describe('Name of the data item.')),
    value: z
      .string()
      .check(z.maxLength(MAX_VALUE_LENGTH, `must be at most ${MAX_VALUE_LENGTH} characters`)),
    displayOrder: z.optional(
      z
        .int('must be an integer')
        .check(
          z.minimum(1, 'must be greater than zero'),
          z.maximum(2_147_483_647, 'must be at most 2147483647'),
        ),
    ),
  })
  .check(checkDataItemValue);

export type DataItem = z.infer<typeof dataItem>;

const keyedItem = z.object({ key: z.string() });

/** The item's key when it has a usable one; items with a bad key are reported on their own. */
const dataKeyOf = (item: unknown): string | undefined => {
  const parsed = keyedItem.safeParse(item);
  return parsed.success ? parsed.data.key : undefined;
};

/**
 * Rules across the items of `previewRecordData`: keys are unique (the spec does not say which of
 * two equal keys wins, so we refuse to guess) and no key equals the `clientIdFieldName` in effect
 * (the platform answers INVALIDRECORDDATAKEY). Runs even when other fields failed.
 */
export const checkRecordData = crossFieldCheck(
  z.object({ clientIdFieldName: z.optional(z.unknown()), previewRecordData: z.array(z.unknown()) }),
  ({ clientIdFieldName, previewRecordData }, ctx) => {
    // With an unusable clientIdFieldName the reserved key is unknown; its own issue says why.
    const reserved =
      clientIdFieldName === undefined
        ? DEFAULT_CLIENT_ID_FIELD_NAME
        : typeof clientIdFieldName === 'string' && clientIdFieldName !== ''
          ? clientIdFieldName
          : undefined;
    const seen = new Set<string>();
    previewRecordData.forEach((item, index) => {
      const key = dataKeyOf(item);
      if (key === undefined) return;
      const path = () => ['previewRecordData', index, 'key'];
      if (seen.has(key)) {
        ctx.addIssue({ code: 'custom', path: path(), message: `duplicate data key "${key}"` });
      }
      seen.add(key);
      if (key === reserved) {
        ctx.addIssue({
          code: 'custom',
          path: path(),
          message: `data key "${reserved}" is reserved: it equals clientIdFieldName, under which the platform stores clientId (send the id as clientId instead)`,
        });
      }
    });
  },
);
