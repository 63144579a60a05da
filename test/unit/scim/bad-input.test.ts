/**
 * Every bad request gets SCIM's error (schemas, status as a string, scimType, a detail naming
 * the attribute) and sends nothing to the platform; someone else's user is never ours.
 */
import { describe, expect, it } from 'vitest';
import {
  buildScim,
  entraUser,
  oktaUser,
  patch,
  platformRequests,
  type Scim,
  type ScimCall,
  scimPerTest,
} from './scim-fixture';

const { sim, scim } = scimPerTest();

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A live user made through SCIM, for the requests that name one. */
const created = async (scim: Scim, login = 'ada@example.com'): Promise<string> => {
  const answer = await scim.call('POST', 'Users', { body: entraUser(login) });
  expect(answer.status).toBe(201);
  return answer.body.id as string;
};

const BAD: readonly {
  readonly name: string;
  readonly method: string;
  /** The path, `{id}` standing for a live user's id. */
  readonly path: string;
  readonly call: (scim: Scim) => ScimCall;
  readonly status: number;
  readonly scimType?: string;
  readonly detail: RegExp;
}[] = [
  {
    name: 'no token',
    method: 'POST',
    path: 'Users',
    call: () => ({ token: null, body: oktaUser('x@example.com') }),
    status: 401,
    detail: /bearer token/,
  },
  {
    name: 'a wrong token',
    method: 'POST',
    path: 'Users',
    call: () => ({ token: 'not-the-token', body: oktaUser('x@example.com') }),
    status: 401,
    detail: /not valid/,
  },
  {
    name: 'a body that is not JSON',
    method: 'POST',
    path: 'Users',
    call: () => ({ rawBody: '{"userName": ' }),
    status: 400,
    scimType: 'invalidSyntax',
    detail: /not JSON/,
  },
  {
    name: 'a wrong schemas value',
    method: 'POST',
    path: 'Users',
    call: () => ({ body: oktaUser('x@example.com', { schemas: ['urn:example:User'] }) }),
    status: 400,
    scimType: 'invalidSyntax',
    detail: /schemas must list urn:ietf:params:scim:schemas:core:2\.0:User/,
  },
  {
    name: 'an unknown attribute',
    method: 'POST',
    path: 'Users',
    call: () => ({ body: oktaUser('x@example.com', { favouriteColour: 'green' }) }),
    status: 400,
    scimType: 'invalidValue',
    detail: /favouriteColour/,
  },
  {
    name: 'an unknown attribute named with the core schema URN',
    method: 'POST',
    path: 'Users',
    call: () => ({
      body: oktaUser('x@example.com', {
        'urn:ietf:params:scim:schemas:core:2.0:User:favouriteColour': 'green',
      }),
    }),
    status: 400,
    scimType: 'invalidValue',
    detail: /favouriteColour is not an attribute/,
  },
  {
    name: 'a missing name.familyName',
    method: 'POST',
    path: 'Users',
    call: () => ({ body: oktaUser('x@example.com', { name: { givenName: 'X' } }) }),
    status: 400,
    scimType: 'invalidValue',
    detail: /name\.familyName/,
  },
  {
    name: 'an e-mail the add-user contract refuses',
    method: 'POST',
    path: 'Users',
    call: () => ({
      body: oktaUser('x@example.com', { emails: [{ value: 'not-an-address', primary: true }] }),
    }),
    status: 400,
    scimType: 'invalidValue',
    detail: /emails/,
  },
  {
    name: 'an unsupported filter operator',
    method: 'GET',
    path: 'Users',
    call: () => ({ query: { filter: 'userName co "ada"' } }),
    status: 400,
    scimType: 'invalidFilter',
    detail: /operator co/,
  },
  {
    name: 'a filter on an attribute that cannot be filtered on',
    method: 'GET',
    path: 'Users',
    call: () => ({ query: { filter: 'emails.value eq "ada@example.com"' } }),
    status: 400,
    scimType: 'invalidFilter',
    detail: /emails\.value/,
  },
  {
    name: 'count over the maximum',
    method: 'GET',
    path: 'Users',
    call: () => ({ query: { count: '101' } }),
    status: 400,
    scimType: 'invalidValue',
    detail: /count 101 .*maximum of 100/,
  },
  {
    name: 'a change of an immutable attribute (PATCH)',
    method: 'PATCH',
    path: 'Users/{id}',
    call: () => ({ body: patch({ op: 'replace', path: 'name.givenName', value: 'Augusta' }) }),
    status: 400,
    scimType: 'mutability',
    detail: /^name\.givenName is immutable/,
  },
  {
    name: 'a change of an immutable attribute (PUT)',
    method: 'PUT',
    path: 'Users/{id}',
    call: () => ({
      body: entraUser('ada@example.com', {
        emails: [{ value: 'ada@other.example', primary: true }],
      }),
    }),
    status: 400,
    scimType: 'mutability',
    detail: /^emails .* is immutable/,
  },
  {
    name: 'a userName change',
    method: 'PATCH',
    path: 'Users/{id}',
    call: () => ({ body: patch({ op: 'Replace', value: { userName: 'ada@new.example' } }) }),
    status: 400,
    scimType: 'mutability',
    detail: /^userName is immutable/,
  },
  {
    name: 'a PATCH without the PatchOp schema',
    method: 'PATCH',
    path: 'Users/{id}',
    call: () => ({ body: { Operations: [{ op: 'replace', path: 'active', value: false }] } }),
    status: 400,
    scimType: 'invalidSyntax',
    detail: /PatchOp/,
  },
  {
    name: 'a PATCH with an unknown op',
    method: 'PATCH',
    path: 'Users/{id}',
    call: () => ({ body: patch({ op: 'merge', path: 'active', value: false }) }),
    status: 400,
    scimType: 'invalidSyntax',
    detail: /Operations\[0\]\.op/,
  },
  {
    name: 'active that is not a boolean',
    method: 'PATCH',
    path: 'Users/{id}',
    call: () => ({ body: patch({ op: 'replace', path: 'active', value: 'no' }) }),
    status: 400,
    scimType: 'invalidValue',
    detail: /^active must be true or false/,
  },
  {
    name: 'a second POST of the same userName',
    method: 'POST',
    path: 'Users',
    call: () => ({ body: entraUser('ada@example.com') }),
    status: 409,
    scimType: 'uniqueness',
    detail: /^userName/,
  },
  {
    name: 'Groups',
    method: 'GET',
    path: 'Groups',
    call: () => ({}),
    status: 404,
    detail: /no groups/,
  },
  {
    name: 'an id that does not decode',
    method: 'GET',
    path: 'Users/100%',
    call: () => ({}),
    status: 404,
    detail: /no User with id 100%/,
  },
  {
    name: 'an id this endpoint never made',
    method: 'DELETE',
    path: 'Users/2819c223-7f76-453a-919d-413861904646',
    call: () => ({}),
    status: 404,
    detail: /no User/,
  },
];

describe('a bad request', () => {
  it.each(BAD)('$name: SCIM error $status, nothing sent to the platform', async (bad) => {
    // Prepare
    const id = await created(scim);
    const before = platformRequests(sim);
    const users = sim.state.listUsers();

    // Act
    const answer = await scim.call(bad.method, bad.path.replace('{id}', id), bad.call(scim));

    // Assess
    expect(answer.status).toBe(bad.status);
    expect(answer.body).toEqual({
      schemas: [ERROR],
      status: String(bad.status),
      ...(bad.scimType === undefined ? {} : { scimType: bad.scimType }),
      detail: expect.stringMatching(bad.detail),
    });
    expect(platformRequests(sim)).toBe(before);
    expect(sim.state.listUsers()).toEqual(users);
  });
});

describe('the bearer token', () => {
  it('after a rotation accepts the new token at once and refuses the old one', async () => {
    // Prepare
    const old = scim.secret.value;
    await scim.call('GET', 'Users');
    scim.secret.rotate('scim-token-rotated');

    // Act
    const withNew = await scim.call('GET', 'Users', { token: 'scim-token-rotated' });
    const withOld = await scim.call('GET', 'Users', { token: old });

    // Assess
    expect(withNew.status).toBe(200);
    expect(withOld).toMatchObject({
      status: 401,
      headers: { 'WWW-Authenticate': 'Bearer realm="scim"' },
    });
  });
});

describe("someone else's user", () => {
  it('is not found by the userName filter, gets 409 on POST, and is never adopted nor deleted', async () => {
    // Prepare
    const login = 'theirs@example.com';
    sim.state.addUser({
      loginUserId: login,
      firstName: 'Not',
      lastName: 'Ours',
      userTemplateName: 'Boss',
    });

    // Act
    const filtered = await scim.call('GET', 'Users', {
      query: { filter: `userName eq "${login}"` },
    });
    const posted = await scim.call('POST', 'Users', { body: oktaUser(login) });
    const again = await scim.call('POST', 'Users', { body: oktaUser(login) });
    const listed = await scim.call('GET', 'Users');

    // Assess
    expect(filtered.body.totalResults).toBe(0);
    expect(posted).toMatchObject({
      status: 409,
      body: { scimType: 'uniqueness', detail: expect.stringMatching(/^userName/) },
    });
    expect(again.status).toBe(409);
    expect(listed.body.totalResults).toBe(0);
    expect(sim.stats.snapshot().endpoints['add-user']).toBeUndefined();
    expect(sim.stats.snapshot().endpoints['delete-user']).toBeUndefined();
    expect(sim.state.findUser(login)).toMatchObject({ firstName: 'Not', lastName: 'Ours' });
  });
});

describe("someone else's user in place of ours", () => {
  it('is refused on reactivation and never deleted by a later deactivation or DELETE', async () => {
    // Prepare: ours, deactivated, then someone makes a user of that login by hand
    const login = 'ada@example.com';
    const id = await created(scim, login);
    await scim.call('PATCH', `Users/${id}`, {
      body: patch({ op: 'replace', path: 'active', value: false }),
    });
    sim.state.addUser({
      loginUserId: login,
      firstName: 'Not',
      lastName: 'Ours',
      userTemplateName: 'Boss',
    });

    // Act
    const reactivated = await scim.call('PATCH', `Users/${id}`, {
      body: patch({ op: 'replace', path: 'active', value: true }),
    });
    const deleted = await scim.call('DELETE', `Users/${id}`);

    // Assess
    expect(reactivated).toMatchObject({ status: 409, body: { scimType: 'uniqueness' } });
    expect(deleted.status).toBe(204);
    expect(sim.state.findUser(login)).toMatchObject({ firstName: 'Not', lastName: 'Ours' });
  });
});

describe('the mass-delete brake', () => {
  it('holds a SCIM delete past its limit: 503 with Retry-After, parked once however often the IdP retries, the user kept', async () => {
    // Prepare
    const scim = buildScim(sim, { brakeLimit: 1 });
    const first = await created(scim, 'one@example.com');
    const second = await created(scim, 'two@example.com');
    await scim.call('DELETE', `Users/${first}`);

    // Act: the IdP deletes the second, and retries
    const held = await scim.call('DELETE', `Users/${second}`);
    const retried = await scim.call('DELETE', `Users/${second}`);

    // Assess
    expect(held).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '900' },
      body: { detail: expect.stringMatching(/brake/) },
    });
    expect(retried.status).toBe(503);
    expect(scim.held).toHaveLength(1);
    expect(JSON.parse(scim.held[0]?.body ?? '{}')).toMatchObject({
      loginUserId: 'two@example.com',
    });
    expect(sim.state.findUser('two@example.com')).toBeDefined();
    expect((await scim.call('GET', `Users/${second}`)).body.active).toBe(true);
  });

  it("applies a held delete once an operator releases it, and the IdP's next retry gets its 204", async () => {
    // Prepare
    const scim = buildScim(sim, { brakeLimit: 1 });
    const first = await created(scim, 'one@example.com');
    const second = await created(scim, 'two@example.com');
    await scim.call('DELETE', `Users/${first}`);
    await scim.call('DELETE', `Users/${second}`);
    const [held] = scim.held;
    if (held === undefined) throw new Error('the delete was not held');

    // Act
    await scim.release(held);
    const retried = await scim.call('DELETE', `Users/${second}`);

    // Assess
    expect(sim.state.findUser('two@example.com')).toBeUndefined();
    expect(retried.status).toBe(204);
    expect(scim.held).toHaveLength(1);
    expect((await scim.call('GET', `Users/${second}`)).status).toBe(404);
  });
});
