/**
 * RFC 7644's list, filter and patch semantics as this endpoint serves them, the discovery
 * documents, and the answers of a platform that cannot take a write now.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  buildScim,
  EXTENSION,
  entraUser,
  oktaUser,
  patch,
  scimPerTest,
  USER_SCHEMA,
} from './scim-fixture';

const { sim, scim } = scimPerTest();

describe('GET /Users', () => {
  it('pages with startIndex and count (1-based), totalResults counting every match', async () => {
    // Prepare
    for (const n of [1, 2, 3, 4, 5]) {
      await scim.call('POST', 'Users', { body: oktaUser(`u${n}@example.com`) });
    }

    // Act
    const all = await scim.call('GET', 'Users');
    const page = await scim.call('GET', 'Users', { query: { startIndex: '2', count: '2' } });
    const none = await scim.call('GET', 'Users', { query: { count: '0' } });
    const past = await scim.call('GET', 'Users', { query: { startIndex: '9' } });

    // Assess
    const ids = (all.body.Resources as { id: string }[]).map((r) => r.id);
    expect(all.body).toMatchObject({ totalResults: 5, startIndex: 1, itemsPerPage: 5 });
    expect(page.body).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect((page.body.Resources as { id: string }[]).map((r) => r.id)).toEqual(ids.slice(1, 3));
    expect(none.body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
    expect(past.body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
  });

  it.each([
    ['userName eq', 'userName eq "ada@example.com"'],
    [
      'the attribute name in another case and its URN',
      `${USER_SCHEMA}:USERNAME EQ "ada@example.com"`,
    ],
    ['externalId eq', 'externalId eq "entra-ada@example.com"'],
  ])('filters by %s', async (_name, filter) => {
    // Prepare
    await scim.call('POST', 'Users', { body: entraUser('ada@example.com') });
    await scim.call('POST', 'Users', { body: entraUser('bob@example.com') });

    // Act
    const found = await scim.call('GET', 'Users', { query: { filter } });

    // Assess
    expect(found.body).toMatchObject({
      totalResults: 1,
      Resources: [{ userName: 'ada@example.com' }],
    });
  });

  it('finds no deleted user, and gives a user created again a new id', async () => {
    // Prepare
    const first = await scim.call('POST', 'Users', { body: oktaUser('ada@example.com') });
    await scim.call('DELETE', `Users/${first.body.id}`);

    // Act
    const afterDelete = await scim.call('GET', 'Users', {
      query: { filter: 'userName eq "ada@example.com"' },
    });
    const second = await scim.call('POST', 'Users', { body: oktaUser('ada@example.com') });

    // Assess
    expect(afterDelete.body.totalResults).toBe(0);
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect((await scim.call('GET', `Users/${first.body.id}`)).status).toBe(404);
  });
});

describe('attributes and excludedAttributes', () => {
  it('are honoured by GET by id and by the list', async () => {
    // Prepare
    const { body } = await scim.call('POST', 'Users', { body: entraUser('ada@example.com') });

    // Act
    const one = await scim.call('GET', `Users/${body.id}`, {
      query: { excludedAttributes: 'displayName' },
    });
    const list = await scim.call('GET', 'Users', { query: { attributes: 'userName' } });

    // Assess
    expect(one.body).not.toHaveProperty('displayName');
    expect(one.body.userName).toBe('ada@example.com');
    expect(list.body.Resources).toEqual([
      { schemas: body.schemas, id: body.id, userName: 'ada@example.com' },
    ]);
  });
});

describe('PATCH /Users/{id}', () => {
  it.each([
    ['Okta: no path, an object value, active false', { op: 'replace', value: { active: false } }],
    [
      'Entra ID: path active, the string "False"',
      { op: 'Replace', path: 'active', value: 'False' },
    ],
    ['a boolean false', { op: 'REPLACE', path: 'active', value: false }],
  ])('deactivates the user: %s', async (_name, operation) => {
    // Prepare
    const { body } = await scim.call('POST', 'Users', { body: oktaUser('grace@example.com') });

    // Act
    const answer = await scim.call('PATCH', `Users/${body.id}`, { body: patch(operation) });

    // Assess
    expect(answer).toMatchObject({ status: 200, body: { active: false } });
    expect(sim.state.findUser('grace@example.com')).toBeUndefined();
  });

  it('applies add, replace and remove of the attributes the platform does not hold, and an unchanged immutable one', async () => {
    // Prepare
    const { body } = await scim.call('POST', 'Users', { body: entraUser('ada@example.com') });

    // Act
    const answer = await scim.call('PATCH', `Users/${body.id}`, {
      body: patch(
        { op: 'add', path: 'externalId', value: 'new-external' },
        { op: 'remove', path: 'displayName' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'ada@example.com' },
        { op: 'Replace', value: { 'name.givenName': 'Ada', title: 'Countess' } },
      ),
    });
    const byNewExternalId = await scim.call('GET', 'Users', {
      query: { filter: 'externalId eq "new-external"' },
    });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.externalId).toBe('new-external');
    expect(answer.body).not.toHaveProperty('displayName');
    expect(byNewExternalId.body.totalResults).toBe(1);
  });

  it.each([
    [
      'replaced whole, with another template',
      { op: 'replace', path: EXTENSION, value: { userTemplateName: 'Supervisor' } },
    ],
    ['removed whole', { op: 'remove', path: EXTENSION }],
    ['one attribute removed', { op: 'remove', path: `${EXTENSION}:createInCloudConnect` }],
  ])('refuses the extension %s as immutable, and changes nothing', async (_name, operation) => {
    // Prepare
    const { body } = await scim.call('POST', 'Users', { body: oktaUser('grace@example.com') });

    // Act
    const answer = await scim.call('PATCH', `Users/${body.id}`, { body: patch(operation) });

    // Assess
    expect(answer).toMatchObject({
      status: 400,
      body: { scimType: 'mutability', detail: expect.stringContaining(EXTENSION) },
    });
  });

  it('accepts the extension as a whole path with the values it has', async () => {
    // Prepare
    const { body } = await scim.call('POST', 'Users', { body: oktaUser('grace@example.com') });

    // Act
    const answer = await scim.call('PATCH', `Users/${body.id}`, {
      body: patch({
        op: 'add',
        path: EXTENSION,
        value: { userTemplateName: 'Agent', createInCloudConnect: false },
      }),
    });

    // Assess
    expect(answer.status).toBe(200);
  });

  it('refuses a change of the extension attributes as immutable', async () => {
    // Prepare
    const { body } = await scim.call('POST', 'Users', { body: oktaUser('grace@example.com') });

    // Act
    const answer = await scim.call('PATCH', `Users/${body.id}`, {
      body: patch({ op: 'replace', value: { [EXTENSION]: { userTemplateName: 'Supervisor' } } }),
    });

    // Assess
    expect(answer).toMatchObject({
      status: 400,
      body: {
        scimType: 'mutability',
        detail: expect.stringContaining(`${EXTENSION}:userTemplateName`),
      },
    });
  });
});

describe('PUT /Users/{id}', () => {
  it('keeps what it leaves out: names, e-mails, the extension and active (no reactivation)', async () => {
    // Prepare
    const { body } = await scim.call('POST', 'Users', { body: oktaUser('grace@example.com') });
    await scim.call('PATCH', `Users/${body.id}`, {
      body: patch({ op: 'replace', value: { active: false } }),
    });

    // Act
    const answer = await scim.call('PUT', `Users/${body.id}`, {
      body: { schemas: [USER_SCHEMA], userName: 'grace@example.com', displayName: 'G. Hopper' },
    });

    // Assess
    expect(answer).toMatchObject({
      status: 200,
      body: {
        displayName: 'G. Hopper',
        active: false,
        name: { givenName: 'Grace', familyName: 'Hopper' },
        emails: [{ value: 'grace@example.com', primary: true }],
      },
    });
    expect(sim.state.findUser('grace@example.com')).toBeUndefined();
  });
});

describe('PATCH with read-only attributes echoed', () => {
  it('ignores id, meta and schemas in a value without a path', async () => {
    // Prepare
    const { body } = await scim.call('POST', 'Users', { body: oktaUser('grace@example.com') });

    // Act
    const answer = await scim.call('PATCH', `Users/${body.id}`, {
      body: patch({ op: 'replace', value: { id: body.id, meta: {}, active: false } }),
    });

    // Assess
    expect(answer).toMatchObject({ status: 200, body: { id: body.id, active: false } });
  });
});

describe('POST /Users', () => {
  it('sends the extension and the e-mails to add-user', async () => {
    // Act
    const answer = await scim.call('POST', 'Users', {
      body: oktaUser('grace@example.com', {
        schemas: [USER_SCHEMA, EXTENSION],
        emails: [
          { value: 'home@example.com', type: 'home' },
          { value: 'grace@example.com', type: 'work' },
        ],
        [EXTENSION]: { userTemplateName: 'Supervisor', createInCloudConnect: true },
      }),
    });

    // Assess
    expect(answer.status).toBe(201);
    expect(sim.state.findUser('grace@example.com')).toMatchObject({
      userTemplateName: 'Supervisor',
    });
    expect(answer.body.emails).toEqual([
      { value: 'grace@example.com', type: 'work', primary: true },
      { value: 'home@example.com', type: 'other', primary: false },
    ]);
  });

  it('answers 503 with Retry-After while the platform fails, keeps nothing, and creates on the retry', async () => {
    // Prepare
    sim.setFaults({ serverErrorRate: 1 });

    // Act
    const failed = await scim.call('POST', 'Users', { body: oktaUser('grace@example.com') });
    const listed = await scim.call('GET', 'Users');
    sim.setFaults({});
    const retried = await scim.call('POST', 'Users', { body: oktaUser('grace@example.com') });

    // Assess
    expect(failed).toMatchObject({
      status: 503,
      headers: { 'Retry-After': expect.stringMatching(/^\d+$/) },
    });
    expect(listed.body.totalResults).toBe(0);
    expect(retried.status).toBe(201);
    expect(sim.state.findUser('grace@example.com')).toBeDefined();
  });
});

describe('requests of one user at the same time', () => {
  it('run one after the other: two POSTs of one userName create it once', async () => {
    // Act
    const answers = await Promise.all([
      scim.call('POST', 'Users', { body: oktaUser('grace@example.com') }),
      scim.call('POST', 'Users', { body: oktaUser('grace@example.com') }),
    ]);

    // Assess
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(sim.stats.snapshot().endpoints['add-user']?.requests).toBe(1);
  });
});

describe('requests of one user within one millisecond', () => {
  it('are ordered as they ran: a deactivation, a reactivation and a delete each take effect', async () => {
    // Prepare: API Gateway stamps every request with the same millisecond
    const scim = buildScim(sim, { receivedAt: () => Date.parse('2026-11-28T09:00:00.000Z') });
    const created = await scim.call('POST', 'Users', { body: entraUser('ada@example.com') });
    const id = created.body.id as string;
    const active = (value: boolean) => ({
      body: patch({ op: 'replace', path: 'active', value }),
    });

    // Act
    const off = await scim.call('PATCH', `Users/${id}`, active(false));
    const goneAfterOff = sim.state.findUser('ada@example.com') === undefined;
    const on = await scim.call('PATCH', `Users/${id}`, active(true));
    const backAfterOn = sim.state.findUser('ada@example.com') !== undefined;
    const deleted = await scim.call('DELETE', `Users/${id}`);

    // Assess
    expect([created.status, off.status, on.status, deleted.status]).toEqual([201, 200, 200, 204]);
    expect(goneAfterOff).toBe(true);
    expect(backAfterOn).toBe(true);
    expect(sim.state.findUser('ada@example.com')).toBeUndefined();
  });
});

describe('the log', () => {
  it('has one line per request with the path template, never the id, the query or the user', async () => {
    // Prepare
    const { body } = await scim.call('POST', 'Users', { body: oktaUser('grace@example.com') });
    const info = vi.spyOn(scim.logger, 'info');

    // Act
    await scim.call('GET', `Users/${body.id}`);
    await scim.call('GET', 'Users', { query: { filter: 'userName eq "grace@example.com"' } });
    await scim.call('GET', 'Users', { query: { filter: 'userName co "grace"' } });

    // Assess
    const lines = info.mock.calls.filter(([message]) => message === 'SCIM request answered');
    expect(lines.map(([, fields]) => fields)).toEqual([
      expect.objectContaining({ method: 'GET', resource: '/Users/{id}', status: 200 }),
      expect.objectContaining({ method: 'GET', resource: '/Users', status: 200 }),
      expect.objectContaining({ resource: '/Users', status: 400, scimType: 'invalidFilter' }),
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/grace|Hopper/);
    expect(JSON.stringify(lines)).not.toContain(body.id);
  });

  it('counts every request, and the refused and failed ones apart', async () => {
    // Prepare
    const added = vi.spyOn(scim.metrics, 'addMetric');
    sim.setFaults({ serverErrorRate: 1 });

    // Act
    await scim.call('GET', 'ServiceProviderConfig');
    await scim.call('GET', 'Users', { query: { count: '1000' } });
    await scim.call('POST', 'Users', { body: oktaUser('grace@example.com') });

    // Assess
    const names = added.mock.calls.map(([name]) => name).filter((name) => name.startsWith('Scim'));
    expect(names).toEqual([
      'ScimRequests',
      'ScimRequests',
      'ScimClientErrors',
      'ScimRequests',
      'ScimServerErrors',
    ]);
  });
});

describe('discovery', () => {
  it('tells what the endpoint does: patch yes, bulk, sort, change password and etag no, filter with its maximum', async () => {
    // Act
    const { body } = await scim.call('GET', 'ServiceProviderConfig');

    // Assess
    expect(body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 100 },
      sort: { supported: false },
      changePassword: { supported: false },
      etag: { supported: false },
    });
  });

  it('lists only User, and marks what the platform cannot update immutable', async () => {
    // Act
    const types = await scim.call('GET', 'ResourceTypes');
    const schemas = await scim.call('GET', 'Schemas');
    const user = await scim.call('GET', `Schemas/${USER_SCHEMA}`);

    // Assess
    expect((types.body.Resources as { id: string }[]).map((t) => t.id)).toEqual(['User']);
    expect((schemas.body.Resources as { id: string }[]).map((s) => s.id)).toEqual([
      USER_SCHEMA,
      EXTENSION,
    ]);
    const mutability = Object.fromEntries(
      (user.body.attributes as { name: string; mutability: string }[]).map((a) => [
        a.name,
        a.mutability,
      ]),
    );
    expect(mutability).toMatchObject({
      userName: 'immutable',
      name: 'immutable',
      emails: 'immutable',
      active: 'readWrite',
      password: 'writeOnly',
    });
  });
});
