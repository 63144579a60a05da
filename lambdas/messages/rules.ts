/**
 * Field rules from the specs, as plain predicates so the schemas, the simulator and the
 * tests share one definition.
 */

/** Clean E.164: a plus sign, a non-zero country digit, at most 15 digits in all. */
export const isE164 = (value: string): boolean => /^\+[1-9]\d{1,14}$/.test(value);

/** Absolute http(s) URL; other schemes (javascript:, file:) would open in the agent's browser. */
export const isAbsoluteHttpUrl = (value: string): boolean => {
  if (!URL.canParse(value)) return false;
  const { protocol, host } = new URL(value);
  return (protocol === 'https:' || protocol === 'http:') && host.length > 0;
};

const validZones = new Map<string, boolean>();

/**
 * IANA Time Zone Database name such as `Europe/Berlin` or `UTC`. Offsets like `+01:00`, which
 * the runtime's Intl would accept, are not zone names and are rejected.
 */
export const isIanaTimeZone = (value: string): boolean => {
  const known = validZones.get(value);
  if (known !== undefined) return known;
  let valid = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(value);
  if (valid) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
    } catch {
      valid = false;
    }
  }
  if (validZones.size < 1000) validZones.set(value, valid);
  return valid;
};

/** Any key containing `phone`, in any case, is a click-to-dial number. */
export const isPhoneKey = (key: string): boolean => key.toLowerCase().includes('phone');

/** Keys ending in exactly `_link` or `_button` (case-sensitive) carry URLs. */
export const isUrlKey = (key: string): boolean => key.endsWith('_link') || key.endsWith('_button');

/** The data key holding an IANA zone name. */
export const ITEM_TIME_ZONE_KEY = 'ItemTimeZone';

/** Default of `clientIdFieldName` when the message does not set one. */
export const DEFAULT_CLIENT_ID_FIELD_NAME = 'Id';

/** Latest instant accepted for `nextEarliestWorkTimeUTC`: 9999-12-31T23:59:59.999Z. */
export const MAX_EPOCH_MILLIS = 253_402_300_799_999;
