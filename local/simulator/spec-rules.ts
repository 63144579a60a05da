/**
 * The realtime spec's field rules as the platform applies them, written here from the spec and
 * not imported from the client: the contract tests send the client's requests to this
 * simulator, so a wrong rule on either side shows as a disagreement instead of agreeing with
 * itself. Where the spec leaves room, the simulator takes the plain reading (docs/decisions.md).
 */

/** "Value must be a clean E.164 number": `+`, a country digit 1–9, at most 15 digits. */
export const isCleanE164 = (value: string): boolean => /^\+[1-9][0-9]{1,14}$/.test(value);

/** "Value is a URL": something the URL parser reads as an absolute http(s) address. */
export const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

const ZONES = new Set(Intl.supportedValuesOf('timeZone'));

/**
 * "An IANA Time Zone Database name": a name the runtime's zone database knows, spelled as it
 * spells it (a link such as `Asia/Calcutta` counts when the runtime resolves it by that name).
 */
export const isZoneName = (value: string): boolean => {
  if (ZONES.has(value)) return true;
  if (!/^[A-Za-z]/.test(value)) return false;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions();
    // Intl accepts any letter case; the database's own spelling is what a name is.
    return resolved.timeZone === value || value === value.replace(/[^/]+/g, spelledAsKnown);
  } catch {
    return false;
  }
};

const KNOWN_PARTS = new Map(
  [...ZONES].flatMap((zone) => zone.split('/')).map((part) => [part.toLowerCase(), part]),
);
const spelledAsKnown = (part: string): string => KNOWN_PARTS.get(part.toLowerCase()) ?? part;

/** "Any key containing `phone` (case-insensitive)". */
export const isPhoneKey = (key: string): boolean => /phone/i.test(key);

/** "Any key ending in exactly `_link`" or "`_button`". */
export const isUrlKey = (key: string): boolean => /_(link|button)$/.test(key);

export const ITEM_TIME_ZONE_KEY = 'ItemTimeZone';

/** `clientIdFieldName`: "Default `Id`". */
export const DEFAULT_CLIENT_ID_FIELD_NAME = 'Id';

/** The base URL's region prefixes, as the spec lists them (no prefix means us-east-1). */
export const SPEC_REGIONS: ReadonlySet<string> = new Set([
  'us-east-1',
  'us-west-2',
  'ca-central-1',
  'eu-west-2',
  'eu-central-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'ap-northeast-2',
  'af-south-1',
]);
