/**
 * The SCIM endpoint through the deployed stack: each request goes through MiniStack's API
 * Gateway REST proxy (the stage `prod`, its throttle and its Lambda proxy integration) to the
 * bundled SCIM function, run by MiniStack with its own role (IAM enforced), to the platform
 * simulator. Entra ID's and Okta's sequences (local/scim/idp-sequences.ts, the same the local
 * endpoint replays) end as the platform must after each step; list, filter and PATCH answer as
 * RFC 7644 says; a missing or wrong token and other bad input get SCIM errors and reach nothing;
 * a user someone else made gets 409.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../lambdas/actions/add-user';
import { PlatformCaller } from '../../lambdas/core/platform/platform-caller';
import { SCIM_URL_OUTPUT_KEY } from '../../lib/stack-outputs';
import {
  entraIdSequence,
  type IdpSequence,
  oktaSequence,
  replaySequence,
} from '../../local/scim/idp-sequences';
import {
  itAnswersScimErrors,
  platformRequestCount,
  SCIM_ERROR_SCHEMA,
  scimBadInput,
  scimRequester,
} from '../support/scim-over-http';
import {
  DEPLOY_API_KEY,
  DEPLOY_REGION,
  DEPLOY_SCIM_TOKEN,
  DEPLOY_TENANT,
} from './support/deploy-config';
import { deployedContext } from './support/deployed-context';
import { scimBaseUrl, trustEmulatorCertificate } from './support/scim-endpoint';

const ctx = deployedContext();

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

let baseUrl: string;

beforeAll(() => {
  trustEmulatorCertificate(ctx.setup.caCertificate);
  baseUrl = scimBaseUrl(ctx.setup.endpoint, ctx.output(SCIM_URL_OUTPUT_KEY));
});

const onPlatform = async (login: string): Promise<boolean> =>
  (await ctx.platform.state()).users.some((user) => user.loginUserId === login);

const platformRequests = () => platformRequestCount(ctx.setup.platformUrl);

const scim = scimRequester(
  () => baseUrl,
  () => DEPLOY_SCIM_TOKEN,
);

const newUser = (userName: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    schemas: [USER],
    userName,
    name: { givenName: 'Dee', familyName: 'Ployed' },
    emails: [{ value: userName, primary: true }],
    ...extra,
  });

describe('the IdP sequences through API Gateway to the deployed SCIM function', () => {
  it.each([
    [
      entraIdSequence('entra.deployed@examplecorp.com'),
      ['add-user', 'delete-user', 'add-user', 'delete-user'],
    ],
    [oktaSequence('okta.deployed@examplecorp.com'), ['add-user', 'delete-user']],
  ] satisfies [IdpSequence, string[]][])(
    "$idp's sequence gets each expected answer and leaves the platform as each step must",
    async (sequence, applied) => {
      // Act
      const outcomes = await replaySequence(sequence, {
        baseUrl,
        token: DEPLOY_SCIM_TOKEN,
        onPlatform,
      });

      // Assess: every step's status, list total and platform state; then the writes applied
      expect(
        outcomes.flatMap((o) => o.problems.map((problem) => `${o.step.label}: ${problem}`)),
      ).toEqual([]);
      expect(outcomes.map((o) => o.status)).toEqual(sequence.steps.map((s) => s.expectStatus));
      const { history } = await ctx.platform.state();
      expect(
        history.filter((op) => op.loginUserId === sequence.userName).map((op) => op.action),
      ).toEqual(applied);
    },
  );
});

describe("RFC 7644's list, filter and patch semantics through the deployed stack", () => {
  it('finds a created user by id, userName and externalId, pages the list, and refuses a change of an immutable name', async () => {
    // Prepare
    const login = 'semantics.deployed@examplecorp.com';
    const created = await scim('/Users', {
      method: 'POST',
      body: newUser(login, { externalId: 'ext-semantics-1' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const filter = (expression: string) => `/Users?filter=${encodeURIComponent(expression)}`;

    // Act
    const byId = await scim(`/Users/${encodeURIComponent(id)}`);
    const byUserName = await scim(filter(`userName eq "${login}"`));
    const byExternalId = await scim(filter(`externalId eq "ext-semantics-1"`));
    const page = await scim('/Users?startIndex=1&count=1');
    const renamed = await scim(`/Users/${encodeURIComponent(id)}`, {
      method: 'PATCH',
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'name.givenName', value: 'Renamed' }],
      }),
    });

    // Assess
    expect(await byId.json()).toMatchObject({ id, userName: login, externalId: 'ext-semantics-1' });
    for (const found of [byUserName, byExternalId]) {
      expect(await found.json()).toMatchObject({ totalResults: 1, Resources: [{ id }] });
    }
    const listed = (await page.json()) as { itemsPerPage: number; startIndex: number };
    expect(listed).toMatchObject({ startIndex: 1, itemsPerPage: 1 });
    expect(renamed.status).toBe(400);
    expect(await renamed.json()).toMatchObject({
      scimType: 'mutability',
      detail: expect.stringContaining('name.givenName'),
    });
    const user = (await ctx.platform.state()).users.find((u) => u.loginUserId === login);
    expect(user).toMatchObject({ firstName: 'Dee', userTemplateName: 'Agent-Standard' });
  });
});

describe('bad input through the deployed stack', () => {
  itAnswersScimErrors(
    [
      ...scimBadInput('not-the-deployed-token'),
      [
        'a create without a token',
        '/Users',
        { token: null, method: 'POST', body: newUser('no.token@examplecorp.com') },
        401,
        undefined,
      ],
    ],
    scim,
    platformRequests,
  );
});

describe('a user someone else made on the platform', () => {
  it('is not listed as ours, gets 409 uniqueness on POST, and stays as it was', async () => {
    // Prepare: an admin of the platform adds the user directly, not through this stack
    const login = 'theirs.deployed@examplecorp.com';
    const admin = new PlatformCaller(
      {
        ...DEPLOY_TENANT,
        baseUrl: ctx.setup.platformUrl,
        campaignRegion: DEPLOY_REGION,
        secretsRegion: DEPLOY_REGION,
      },
      { getKey: async () => DEPLOY_API_KEY, refreshKey: async () => DEPLOY_API_KEY },
    );
    const seeded = await admin.send(addUser, {
      loginUserId: login,
      firstName: 'Not',
      lastName: 'Ours',
      userTemplateName: 'Boss',
    });
    expect(seeded.category).toBe('success');

    // Act
    const filtered = await scim(`/Users?filter=${encodeURIComponent(`userName eq "${login}"`)}`);
    const posted = await scim('/Users', { method: 'POST', body: newUser(login) });

    // Assess
    expect(((await filtered.json()) as { totalResults: number }).totalResults).toBe(0);
    expect(posted.status).toBe(409);
    expect(await posted.json()).toMatchObject({
      schemas: [SCIM_ERROR_SCHEMA],
      scimType: 'uniqueness',
    });
    const { users, history } = await ctx.platform.state();
    expect(users.find((user) => user.loginUserId === login)).toMatchObject({
      firstName: 'Not',
      userTemplateName: 'Boss',
    });
    expect(history.filter((op) => op.loginUserId === login).map((op) => op.action)).toEqual([
      'add-user',
    ]);
  });
});
