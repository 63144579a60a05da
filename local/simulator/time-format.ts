/** Latest instant the simulator stores: 9999-12-31T23:59:59.999Z (keeps the four-digit year). */
export const MAX_EPOCH_MILLIS = 253_402_300_799_999;

/** The specs' time format: UTC `CCYY-MM-DD HH:MM:SS.mmm`. */
export const formatPlatformTime = (epochMillis: number): string =>
  new Date(epochMillis).toISOString().replace('T', ' ').replace('Z', '');

export const formatOptionalPlatformTime = (epochMillis: number | null): string | null =>
  epochMillis === null ? null : formatPlatformTime(epochMillis);

/** Milliseconds since 1970-01-01 UTC the specs accept as a `long`: a whole, non-negative number. */
export const isEpochMillis = (value: unknown): value is number =>
  typeof value === 'number' &&
  Number.isSafeInteger(value) &&
  value >= 0 &&
  value <= MAX_EPOCH_MILLIS;
