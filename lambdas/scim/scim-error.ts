/**
 * SCIM's error answer (RFC 7644 §3.12): `status` as a string, a `scimType` where the RFC has
 * one, and a detail naming the attribute. Thrown anywhere in a request, answered by the handler.
 */
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export class ScimError extends Error {
  override readonly name = 'ScimError';
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
    /** Seconds the client should wait before trying again (503). */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
  }
}

export const badRequest = (scimType: ScimType, detail: string): ScimError =>
  new ScimError(400, detail, scimType);

export const notFound = (detail: string): ScimError => new ScimError(404, detail);

/** The body of an error answer. */
export const errorBody = (error: ScimError) => ({
  schemas: [ERROR_SCHEMA],
  status: String(error.status),
  ...(error.scimType === undefined ? {} : { scimType: error.scimType }),
  detail: error.detail,
});
