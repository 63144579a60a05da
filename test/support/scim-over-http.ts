/**
 * A SCIM endpoint met over HTTP as an IdP meets it, the local one and the deployed one alike:
 * requests with a bearer token, the platform simulator's request count, and the bad input each
 * answers with a SCIM error while sending nothing to the platform.
 */
import { expect, it } from 'vitest';

/** Written out here rather than imported, so that the tests check the handler's constant. */
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A request's init; `token` replaces the endpoint's token, `null` sends none. */
export type ScimInit = RequestInit & { readonly token?: string | null };

export type ScimRequest = (pathAndQuery: string, init?: ScimInit) => Promise<Response>;

/** Requests to the endpoint at `baseUrl()` with the bearer token `token()` (read per request). */
export const scimRequester =
  (baseUrl: () => string, token: () => string): ScimRequest =>
  (pathAndQuery, init = {}) => {
    const { token: given = token(), ...rest } = init;
    return fetch(`${baseUrl()}${pathAndQuery}`, {
      ...rest,
      headers: {
        'Content-Type': 'application/scim+json',
        ...(given === null ? {} : { Authorization: `Bearer ${given}` }),
      },
    });
  };

/** How many requests the platform simulator at `platformUrl` has answered so far. */
export const platformRequestCount = async (platformUrl: string): Promise<number> => {
  const response = await fetch(`${platformUrl}/__admin/stats`);
  return ((await response.json()) as { requests: number }).requests;
};

/** A case: its name, the request, and the status and `scimType` of the SCIM error expected. */
export type ScimBadInput = readonly [
  name: string,
  pathAndQuery: string,
  init: ScimInit,
  status: number,
  scimType: string | undefined,
];

/** The bad input every endpoint refuses alike; `wrongToken` is one the endpoint does not hold. */
export const scimBadInput = (wrongToken: string): ScimBadInput[] => [
  ['no token', '/Users', { token: null }, 401, undefined],
  ['a wrong token', '/Users', { token: wrongToken }, 401, undefined],
  ['a body that is not JSON', '/Users', { method: 'POST', body: 'not json' }, 400, 'invalidSyntax'],
  [
    'an unsupported filter operator',
    `/Users?filter=${encodeURIComponent('userName co "a"')}`,
    {},
    400,
    'invalidFilter',
  ],
  ['count over the maximum', '/Users?count=101', {}, 400, 'invalidValue'],
  ['/Groups', '/Groups', {}, 404, undefined],
];

/** One test a case: the endpoint answers with that SCIM error and the platform gets nothing. */
export const itAnswersScimErrors = (
  cases: readonly ScimBadInput[],
  scim: ScimRequest,
  platformRequests: () => Promise<number>,
): void => {
  it.each(cases)(
    'answers %s with a SCIM error and sends nothing to the platform',
    async (_name, where, init, status, scimType) => {
      // Prepare
      const before = await platformRequests();

      // Act
      const response = await scim(where, init);

      // Assess
      const body = (await response.json()) as Record<string, unknown>;
      expect(response.status).toBe(status);
      expect(body).toMatchObject({ schemas: [SCIM_ERROR_SCHEMA], status: String(status) });
      expect(body.scimType).toBe(scimType);
      expect(await platformRequests()).toBe(before);
    },
  );
};
