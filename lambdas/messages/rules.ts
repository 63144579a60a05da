/**
 * Field rules from the specs, as plain predicates so the schemas, the simulator and the
 * tests share one definition.
 */

/** Clean E.164: a plus sign, a non-zero country digit, at most 15 digits in all. */
export const isE164 = (value: string): boolean => /^\+[1-9]\d{1,14}$/.test(value);

/** Whitespace or control characters, which the WHATWG URL parser would silently strip. */
const URL_NOISE = /[\s\p{Cc}]/u;

/**
 * Absolute http(s) URL; other schemes (javascript:, file:, ftp:) would open in the agent's
 * browser. Whitespace is refused rather than trimmed: the platform gets the value as sent.
 */
export const isAbsoluteHttpUrl = (value: string): boolean => {
  if (URL_NOISE.test(value) || !URL.canParse(value)) return false;
  const { protocol, host } = new URL(value);
  return (protocol === 'https:' || protocol === 'http:') && host.length > 0;
};

/**
 * Shape of a tz database name: up to three `/`-separated components, each starting with an
 * upper-case letter (`UTC`, `Europe/Berlin`, `America/Argentina/Buenos_Aires`, `Etc/GMT+1`).
 * It keeps out what Intl accepts but is no zone name: offsets (`+01:00`) and padded values.
 */
const ZONE_NAME_SHAPE = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*){0,2}$/;

let zoneComponentCase: ReadonlyMap<string, string> | undefined;
let canonicalZones: ReadonlySet<string> | undefined;

/**
 * The runtime's canonical zone names. Checking these first spares most messages the first
 * `Intl.DateTimeFormat` with a time zone, which costs 10–25 ms on a cold start.
 */
const isCanonicalZone = (value: string): boolean => {
  canonicalZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  return canonicalZones.has(value);
};

/** Lower-case → exact spelling of every component of the runtime's canonical zone names. */
const knownComponentCase = (): ReadonlyMap<string, string> => {
  if (zoneComponentCase === undefined) {
    const map = new Map<string, string>();
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      for (const component of zone.split('/')) map.set(component.toLowerCase(), component);
    }
    zoneComponentCase = map;
  }
  return zoneComponentCase;
};

const validZones = new Map<string, boolean>();

/**
 * IANA Time Zone Database name such as `Europe/Berlin`, `UTC` or a backward link like
 * `Asia/Calcutta`, spelled exactly as the database does. The runtime's Intl is more lenient
 * than the IANA names (it takes `+01:00` and any letter case, e.g. `europe/berlin`), while the
 * platform's own lookup may be case-sensitive, so we also require the shape and exact case.
 */
export const isIanaTimeZone = (value: string): boolean => {
  const known = validZones.get(value);
  if (known !== undefined) return known;
  const valid =
    ZONE_NAME_SHAPE.test(value) && (isCanonicalZone(value) || isExactlySpelledZone(value));
  if (validZones.size < 1000) validZones.set(value, valid);
  return valid;
};

const isExactlySpelledZone = (value: string): boolean => {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  // Intl resolves case-insensitively; a name that differs from its resolution only in case is misspelt.
  if (resolved !== value && resolved.toLowerCase() === value.toLowerCase()) return false;
  // Links resolve to another name (US/Pacific → America/Los_Angeles), so compare per component.
  const components = knownComponentCase();
  return value.split('/').every((component) => {
    const exact = components.get(component.toLowerCase());
    return exact === undefined || exact === component;
  });
};

/** Any key containing `phone`, in any case, is a click-to-dial number. */
export const isPhoneKey = (key: string): boolean => key.toLowerCase().includes('phone');

/** Keys ending in exactly `_link` or `_button` (case-sensitive) carry URLs. */
export const isUrlKey = (key: string): boolean => key.endsWith('_link') || key.endsWith('_button');

/** The data key naming the record's skill queue. */
export const SKILL_QUEUE_KEY = 'SkillQueue';

/** The data key holding an IANA zone name. */
export const ITEM_TIME_ZONE_KEY = 'ItemTimeZone';

/** Default of `clientIdFieldName` when the message does not set one. */
export const DEFAULT_CLIENT_ID_FIELD_NAME = 'Id';

/** Latest instant accepted for `nextEarliestWorkTimeUTC`: 9999-12-31T23:59:59.999Z. */
export const MAX_EPOCH_MILLIS = 253_402_300_799_999;
