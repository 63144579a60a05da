/**
 * The SCIM function as Entra ID and Okta drive it, in-process against the simulator: each
 * request's answer, and what the platform holds after it.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TEMPLATE,
  EXTENSION,
  entraUser,
  oktaUser,
  patch,
  scimPerTest,
} from './scim-fixture';

const { sim, scim } = scimPerTest();

describe("Entra ID's sequence", () => {
  it('filters by userName, creates, patches, soft-deletes, reactivates and deletes the user', async () => {
    // Prepare
    const login = 'ada@example.com';

    // Act: the match Entra ID makes before it creates
    const before = await scim.call('GET', 'Users', { query: { filter: `userName eq "${login}"` } });
    const created = await scim.call('POST', 'Users', { body: entraUser(login) });
    const id = created.body.id as string;

    // Assess
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ totalResults: 0, Resources: [] });
    expect(created.status).toBe(201);
    expect(created.headers.Location).toBe(`https://scim.example.com/prod/scim/v2/Users/${id}`);
    expect(created.body).toMatchObject({
      userName: login,
      externalId: `entra-${login}`,
      displayName: 'Ada Lovelace',
      active: true,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: login, primary: true }],
      [EXTENSION]: { userTemplateName: DEFAULT_TEMPLATE, createInCloudConnect: false },
    });
    expect(sim.state.findUser(login)).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });

    // Act: a found match, then a PATCH replace of what the platform does not hold
    const found = await scim.call('GET', 'Users', { query: { filter: `userName eq "${login}"` } });
    const renamed = await scim.call('PATCH', `Users/${id}`, {
      body: patch(
        { op: 'Replace', path: 'displayName', value: 'Ada King' },
        {
          op: 'Add',
          path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber',
          value: '9',
        },
      ),
    });

    // Assess
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id, userName: login }] });
    expect(renamed.status).toBe(200);
    expect(renamed.body.displayName).toBe('Ada King');

    // Act: soft delete (active "False", as Entra ID sends it), then reactivate
    const disabled = await scim.call('PATCH', `Users/${id}`, {
      body: patch({ op: 'Replace', path: 'active', value: 'False' }),
    });
    const goneWhileDisabled = sim.state.findUser(login);
    const shown = await scim.call('GET', `Users/${id}`);
    const enabled = await scim.call('PATCH', `Users/${id}`, {
      body: patch({ op: 'Replace', path: 'active', value: 'True' }),
    });

    // Assess
    expect(disabled).toMatchObject({ status: 200, body: { id, active: false } });
    expect(goneWhileDisabled).toBeUndefined();
    expect(shown).toMatchObject({ status: 200, body: { id, active: false } });
    expect(enabled).toMatchObject({ status: 200, body: { id, active: true } });
    expect(sim.state.findUser(login)).toMatchObject({ firstName: 'Ada' });

    // Act: delete
    const deleted = await scim.call('DELETE', `Users/${id}`);
    const after = await scim.call('GET', `Users/${id}`);

    // Assess
    expect(deleted.status).toBe(204);
    expect(sim.state.findUser(login)).toBeUndefined();
    expect(after.status).toBe(404);
  });
});

describe("Okta's sequence", () => {
  it('lists (test connection), filters, creates, updates with PUT and deactivates the user', async () => {
    // Prepare
    const login = 'grace@example.com';

    // Act
    const listed = await scim.call('GET', 'Users', { query: { startIndex: '1', count: '2' } });
    const filtered = await scim.call('GET', 'Users', {
      query: { filter: `userName eq "${login}"`, startIndex: '1', count: '100' },
    });
    const created = await scim.call('POST', 'Users', { body: oktaUser(login) });
    const id = created.body.id as string;
    const updated = await scim.call('PUT', `Users/${id}`, {
      body: { ...oktaUser(login, { displayName: 'Rear Admiral Hopper' }), id },
    });
    const onPlatformAfterPut = sim.state.findUser(login);
    const deactivated = await scim.call('PUT', `Users/${id}`, {
      body: { ...oktaUser(login, { active: false }), id },
    });

    // Assess
    expect(listed).toMatchObject({
      status: 200,
      body: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
        totalResults: 0,
        startIndex: 1,
        itemsPerPage: 0,
        Resources: [],
      },
    });
    expect(filtered.body.totalResults).toBe(0);
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('password');
    expect(JSON.stringify(scim.ledgerStore)).not.toContain('secret-never-kept');
    expect(updated).toMatchObject({
      status: 200,
      body: { id, displayName: 'Rear Admiral Hopper' },
    });
    expect(onPlatformAfterPut).toMatchObject({ firstName: 'Grace', lastName: 'Hopper' });
    expect(deactivated).toMatchObject({ status: 200, body: { id, active: false } });
    expect(sim.state.findUser(login)).toBeUndefined();
  });
});
