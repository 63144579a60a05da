import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../local/simulator';
import {
  newUser,
  provisioning,
  tenantObject,
  useTestSimulator,
  withTestSimulator,
} from './simulator-support';

/** Adds `newUser` as it is, then with `change`, one after the other; answers both replies in order. */
const addUserAsIsThenWith = async (target: RunningSimulator, change: Record<string, string>) => {
  const asIs = await provisioning(target, 'add-user', newUser);
  const changed = await provisioning(target, 'add-user', { ...newUser, ...change });
  return [asIs, changed] as const;
};

describe('simulator: user provisioning', () => {
  const sim = useTestSimulator();

  describe('add-user', () => {
    it('creates the user in the platform only when createInCloudConnect is omitted', async () => {
      // Act
      const reply = await provisioning(sim, 'add-user', newUser);

      // Assess
      expect(reply.status).toBe(200);
      expect(reply.json.result).toBe('SUCCESS');
      expect(reply.json.message).toEqual(expect.any(String));
      expect(reply.json).not.toHaveProperty('connectUserId');
      expect(sim.state.findUser('ann@example.com')).toMatchObject({
        firstName: 'Ann',
        lastName: 'Example',
        userTemplateName: 'Agent',
        inCloudConnect: false,
        connectUserId: null,
        appliedCount: 1,
      });
    });

    it('also creates the user in the backing instance and returns its connectUserId', async () => {
      // Act
      const reply = await provisioning(sim, 'add-user', { ...newUser, createInCloudConnect: true });

      // Assess
      expect(reply.json.result).toBe('SUCCESS');
      expect(reply.json.connectUserId).toEqual(expect.any(String));
      expect(sim.state.findUser('ann@example.com')).toMatchObject({
        inCloudConnect: true,
        connectUserId: reply.json.connectUserId,
      });
    });

    it('answers ALREADY_EXISTS for the same loginUserId, and accepts another casing', async () => {
      // Prepare
      await provisioning(sim, 'add-user', newUser);

      // Act
      const [again, otherCase] = await addUserAsIsThenWith(sim, { loginUserId: 'Ann@Example.com' });

      // Assess
      expect(again.json.result).toBe('ALREADY_EXISTS');
      expect(otherCase.json.result).toBe('SUCCESS');
      expect(sim.state.listUsers().map((u) => u.loginUserId)).toEqual([
        'ann@example.com',
        'Ann@Example.com',
      ]);
    });

    it.each([
      ['missing loginUserId', { loginUserId: undefined }],
      ['empty loginUserId', { loginUserId: '' }],
      ['missing firstName', { firstName: undefined }],
      ['empty firstName', { firstName: '' }],
      ['missing lastName', { lastName: undefined }],
      ['empty lastName', { lastName: '' }],
      ['missing userTemplateName', { userTemplateName: undefined }],
      ['empty userTemplateName', { userTemplateName: '' }],
      ['a non-boolean createInCloudConnect', { createInCloudConnect: 'yes' }],
      ['a malformed primaryEmailAddr', { primaryEmailAddr: 'not-an-email' }],
    ])('answers INVALID_ARGUMENTS for %s', async (_label, override) => {
      // Act
      const reply = await provisioning(sim, 'add-user', { ...newUser, ...override });

      // Assess
      expect(reply.status).toBe(200);
      expect(reply.json.result).toBe('INVALID_ARGUMENTS');
      expect(reply.json.message).toEqual(expect.any(String));
      expect(sim.state.listUsers()).toEqual([]);
    });
  });

  describe('query-existence', () => {
    it.each([
      {
        answer: 'SUCCESS / EXISTS / id',
        who: 'a user in the platform and the backing instance',
        prepare: () =>
          sim.state.addUser({ ...newUser, inCloudConnect: true, connectUserId: 'connect-1' }),
        loginUserId: newUser.loginUserId,
        expected: { result: 'SUCCESS', cloudConnectStatus: 'EXISTS', connectUserId: 'connect-1' },
      },
      {
        answer: 'SUCCESS / NOT_FOUND / null',
        who: 'a user only in the platform',
        prepare: () => {
          sim.state.addUser({ ...newUser, inCloudConnect: true });
          sim.state.markNotInBackingInstance(newUser.loginUserId);
        },
        loginUserId: newUser.loginUserId,
        expected: { result: 'SUCCESS', cloudConnectStatus: 'NOT_FOUND', connectUserId: null },
      },
      {
        answer: 'NOT_FOUND / null / null',
        who: 'an unknown user',
        prepare: () => {},
        loginUserId: 'nobody@example.com',
        expected: { result: 'NOT_FOUND', cloudConnectStatus: null, connectUserId: null },
      },
    ])('answers $answer for $who', async ({ prepare, loginUserId, expected }) => {
      // Prepare
      prepare();

      // Act
      const reply = await provisioning(sim, 'query-existence', {
        tenant: tenantObject,
        loginUserId,
      });

      // Assess
      expect(reply.json).toEqual({ ...expected, message: expect.any(String) });
    });

    it('answers INVALID_ARGUMENTS without loginUserId', async () => {
      // Act
      const reply = await provisioning(sim, 'query-existence', { tenant: tenantObject });

      // Assess
      expect(reply.json.result).toBe('INVALID_ARGUMENTS');
    });
  });

  describe('delete-user', () => {
    it('answers SUCCESS for an existing user, then NOT_FOUND', async () => {
      // Prepare
      sim.state.addUser({ ...newUser, inCloudConnect: true });

      // Act
      const first = await provisioning(sim, 'delete-user', {
        tenant: tenantObject,
        loginUserId: newUser.loginUserId,
      });
      const second = await provisioning(sim, 'delete-user', {
        tenant: tenantObject,
        loginUserId: newUser.loginUserId,
      });

      // Assess
      expect(first.json).toEqual({ result: 'SUCCESS', message: expect.any(String) });
      expect(second.json).toEqual({ result: 'NOT_FOUND', message: expect.any(String) });
      expect(sim.state.findUser(newUser.loginUserId)).toBeUndefined();
      expect(sim.state.userAppliedCount(newUser.loginUserId)).toBe(1);
    });

    it('answers INVALID_ARGUMENTS without loginUserId', async () => {
      // Act
      const reply = await provisioning(sim, 'delete-user', { tenant: tenantObject });

      // Assess
      expect(reply.json.result).toBe('INVALID_ARGUMENTS');
    });
  });

  describe('tenant', () => {
    it.each([
      ['missing', { tenant: undefined }],
      ['not an object', { tenant: 'acme' }],
      ['with a wrong platform', { tenant: { ...tenantObject, platform: 'OTHER' } }],
      ['with a wrong companyCode', { tenant: { ...tenantObject, companyCode: 'other' } }],
      ['with a wrong environment', { tenant: { ...tenantObject, environment: 'prod' } }],
    ])(
      'answers INVALID_TENANT when the tenant is %s, for every operation',
      async (_l, override) => {
        // Act
        const replies = await Promise.all([
          provisioning(sim, 'add-user', { ...newUser, ...override }),
          provisioning(sim, 'query-existence', { loginUserId: 'x', ...override }),
          provisioning(sim, 'delete-user', { loginUserId: 'x', ...override }),
        ]);

        // Assess
        expect(replies.map((r) => [r.status, r.json.result])).toEqual([
          [200, 'INVALID_TENANT'],
          [200, 'INVALID_TENANT'],
          [200, 'INVALID_TENANT'],
        ]);
        expect(sim.state.listUsers()).toEqual([]);
      },
    );
  });
});

describe('simulator: user directory kinds', () => {
  it('requires primaryEmailAddr for a directory-linked environment', async () => {
    // Prepare
    await withTestSimulator({ userDirectory: 'directory' }, async (sim) => {
      // Act
      const [without, withEmail] = await addUserAsIsThenWith(sim, {
        primaryEmailAddr: 'ann@example.com',
      });

      // Assess
      expect(without.json.result).toBe('INVALID_ARGUMENTS');
      expect(withEmail.json.result).toBe('SUCCESS');
      expect(sim.state.findUser(newUser.loginUserId)?.primaryEmailAddr).toBe('ann@example.com');
    });
  });

  it('ignores primaryEmailAddr in a SAML environment', async () => {
    // Prepare
    await withTestSimulator({ userDirectory: 'saml' }, async (sim) => {
      // Act
      const reply = await provisioning(sim, 'add-user', {
        ...newUser,
        primaryEmailAddr: 'ann@example.com',
      });

      // Assess
      expect(reply.json.result).toBe('SUCCESS');
      expect(sim.state.findUser(newUser.loginUserId)?.primaryEmailAddr).toBeNull();
    });
  });

  it('answers NOT_SUPPORTED for every operation when the instance uses its internal directory', async () => {
    // Prepare
    await withTestSimulator({ userDirectory: 'internal' }, async (sim) => {
      // Act
      const replies = await Promise.all([
        provisioning(sim, 'add-user', newUser),
        provisioning(sim, 'query-existence', { tenant: tenantObject, loginUserId: 'x' }),
        provisioning(sim, 'delete-user', { tenant: tenantObject, loginUserId: 'x' }),
      ]);

      // Assess
      expect(replies.map((r) => r.json.result)).toEqual([
        'NOT_SUPPORTED',
        'NOT_SUPPORTED',
        'NOT_SUPPORTED',
      ]);
      expect(sim.state.listUsers()).toEqual([]);
    });
  });
});
