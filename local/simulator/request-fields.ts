/**
 * Small readers for untrusted JSON bodies. A reader that finds a bad value throws a
 * `Rejection` carrying the status the service answers with; messages name fields and keys,
 * never values (they may be personal data).
 */
export class Rejection extends Error {
  constructor(
    readonly status: string,
    message: string,
  ) {
    super(message);
    this.name = 'Rejection';
  }
}

export type JsonObject = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Absent (undefined or null) → undefined; a string → it; anything else → rejected. */
export const optionalString = (
  body: JsonObject,
  field: string,
  failure: string,
): string | undefined => {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Rejection(failure, `${field} must be a string`);
  return value;
};

/** Like `optionalString` but an empty string is rejected too. */
export const optionalNonEmptyString = (
  body: JsonObject,
  field: string,
  failure: string,
): string | undefined => {
  const value = optionalString(body, field, failure);
  if (value === '') throw new Rejection(failure, `${field} must not be empty`);
  return value;
};

export const requiredNonEmptyString = (
  body: JsonObject,
  field: string,
  failure: string,
): string => {
  const value = optionalNonEmptyString(body, field, failure);
  if (value === undefined) throw new Rejection(failure, `${field} is required`);
  return value;
};
