import { describe, expect, it } from 'vitest';
import type { AddUserMessage } from '../../../lambdas/actions';
import { addUser } from '../../../lambdas/actions/add-user';
import { deleteUser } from '../../../lambdas/actions/delete-user';
import { queryUserExistence } from '../../../lambdas/actions/query-user-existence';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import { TEST_KEY } from '../core/client-fixtures';
import { clientAgainstSimulator, withOwnSimulator } from './contract-fixtures';

/**
 * The provisioning client against the real simulator over loopback: every operation and
 * every result it can answer, as the client classifies them.
 */

const { sim, keys, client, sleeps } = clientAgainstSimulator(PlatformCaller);

const ADA: AddUserMessage = {
  loginUserId: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  userTemplateName: 'Agent',
};

describe('add-user', () => {
  it('SUCCESS: creates the user, with a connectUserId when created in the backing instance', async () => {
    // Prepare
    const message = { ...ADA, createInCloudConnect: true, correlationId: 'corr-1' };

    // Act
    const outcome = await client.send(addUser, message);

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS', attempts: 1 });
    expect((outcome.body as { connectUserId?: string }).connectUserId).toEqual(expect.any(String));
    expect(sim.state.findUser('ada@example.com')).toMatchObject({
      firstName: 'Ada',
      inCloudConnect: true,
    });
  });

  it('ALREADY_EXISTS: permanent for a login id that exists', async () => {
    // Prepare
    await client.send(addUser, ADA);

    // Act
    const outcome = await client.send(addUser, ADA);

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'ALREADY_EXISTS', attempts: 1 });
    expect(outcome.message).toMatch(/^add-user: result ALREADY_EXISTS: .+/);
  });

  it('INVALID_ARGUMENTS: permanent for an empty required field', async () => {
    // Prepare: the schema would stop this; the client passes what it is given.
    const message = { ...ADA, firstName: '' };

    // Act
    const outcome = await client.send(addUser, message);

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'INVALID_ARGUMENTS' });
    expect(outcome.message).toContain('firstName');
    expect(sim.state.listUsers()).toHaveLength(0);
  });

  it('NOT_SUPPORTED: permanent on an environment with the internal user directory', async () => {
    // Prepare
    const internalDirectory = { userDirectory: 'internal' } as const;

    // Act
    const outcome = await withOwnSimulator(PlatformCaller, internalDirectory, {}, (other) =>
      other.send(addUser, ADA),
    );

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'NOT_SUPPORTED', attempts: 1 });
  });

  it('FAIL: retryable, retried up to maxAttempts', async () => {
    // Prepare
    sim.setFaults({ failedStatusRate: 1 });

    // Act
    const outcome = await client.send(addUser, ADA);

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'FAIL', attempts: 2 });
    expect(sleeps).toHaveLength(1);
    expect(sim.state.listUsers()).toHaveLength(0);
  });
});

describe('query-existence', () => {
  it('SUCCESS / EXISTS for a user in the platform and the backing instance', async () => {
    // Prepare
    await client.send(addUser, { ...ADA, createInCloudConnect: true });

    // Act
    const outcome = await client.send(queryUserExistence, { loginUserId: 'ada@example.com' });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(outcome.body).toMatchObject({
      cloudConnectStatus: 'EXISTS',
      connectUserId: expect.any(String),
    });
  });

  it('SUCCESS / NOT_FOUND for a user only in the platform', async () => {
    // Prepare
    await client.send(addUser, { ...ADA, createInCloudConnect: false });

    // Act
    const outcome = await client.send(queryUserExistence, { loginUserId: 'ada@example.com' });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(outcome.body).toMatchObject({ cloudConnectStatus: 'NOT_FOUND', connectUserId: null });
  });

  it('NOT_FOUND (permanent in the generic table) for an unknown user', async () => {
    // Prepare
    const message = { loginUserId: 'nobody@example.com' };

    // Act
    const outcome = await client.send(queryUserExistence, message);

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'NOT_FOUND', attempts: 1 });
    expect(outcome.body).toMatchObject({
      result: 'NOT_FOUND',
      cloudConnectStatus: null,
      connectUserId: null,
    });
  });
});

describe('delete-user', () => {
  it('SUCCESS, then NOT_FOUND for the same user', async () => {
    // Prepare
    await client.send(addUser, ADA);

    // Act
    const first = await client.send(deleteUser, { loginUserId: 'ada@example.com' });
    const second = await client.send(deleteUser, { loginUserId: 'ada@example.com' });

    // Assess
    expect(first).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(second).toMatchObject({ category: 'permanent', code: 'NOT_FOUND' });
    expect(sim.state.findUser('ada@example.com')).toBeUndefined();
  });
});

describe('401 → refresh → retry', () => {
  it('a rotated key is refreshed exactly once and every operation succeeds', async () => {
    // Prepare
    sim.setApiKey('rotated-key-02');
    keys.storedKey = 'rotated-key-02';

    // Act
    const added = await client.send(addUser, ADA);
    const queried = await client.send(queryUserExistence, { loginUserId: ADA.loginUserId });
    const deleted = await client.send(deleteUser, { loginUserId: ADA.loginUserId });

    // Assess
    expect(added).toMatchObject({ category: 'success', code: 'SUCCESS', attempts: 2 });
    expect(queried).toMatchObject({ category: 'success', attempts: 1 });
    expect(deleted).toMatchObject({ category: 'success', attempts: 1 });
    expect(keys.refreshCalls).toEqual([TEST_KEY]);
    expect(sleeps).toEqual([]);
  });

  it('a key still wrong after the refresh is retryable HTTP_401', async () => {
    // Prepare
    sim.setApiKey('rotated-key-02');
    keys.storedKey = 'not-yet-rotated';

    // Act
    const outcome = await client.send(deleteUser, { loginUserId: ADA.loginUserId });

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'HTTP_401', attempts: 2 });
    expect(keys.refreshCalls).toHaveLength(1);
  });
});
