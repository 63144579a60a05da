import { describe, expect, it } from 'vitest';
import { addUser } from '../../../lambdas/actions/add-user';
import { deleteUser } from '../../../lambdas/actions/delete-user';
import { queryUserExistence } from '../../../lambdas/actions/query-user-existence';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import {
  clientAgainstCaptureServer,
  expectOnlyRequest,
  onlyRequest,
} from '../core/client-fixtures';

const TENANT = { platform: 'TESTPLATFORM', companyCode: 'acme', environment: 'qa' };

const { server, client } = clientAgainstCaptureServer(PlatformCaller, {
  status: 200,
  body: { result: 'SUCCESS', message: 'done' },
});

describe('provisioning request shape', () => {
  it('addUser sends tenant plus every user property given', async () => {
    // Prepare
    server.respond(() => ({
      status: 200,
      body: { result: 'SUCCESS', message: 'created', connectUserId: 'cu-1' },
    }));
    const user = {
      loginUserId: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      primaryEmailAddr: 'ada@example.com',
      secondaryEmailAddr: 'ada.l@example.org',
      userTemplateName: 'Agent',
      createInCloudConnect: true,
    };
    const message = { correlationId: 'corr-1', ...user };

    // Act
    const outcome = await client.send(addUser, message);

    // Assess
    expect(outcome).toMatchObject({
      category: 'success',
      code: 'SUCCESS',
      attempts: 1,
      body: { connectUserId: 'cu-1' },
    });
    const request = expectOnlyRequest(server, '/platform-admin/api/users/add-user', {
      tenant: TENANT,
      ...user,
    });
    expect(request.method).toBe('POST');
  });

  it('addUser leaves out optional properties that are not given', async () => {
    // Prepare
    const message = {
      loginUserId: 'bob@example.com',
      firstName: 'Bob',
      lastName: 'Builder',
      userTemplateName: 'Agent',
      secondaryEmailAddr: undefined,
    };

    // Act
    await client.send(addUser, message);

    // Assess
    expect(onlyRequest(server).bodyText).toBe(
      '{"tenant":{"platform":"TESTPLATFORM","companyCode":"acme","environment":"qa"},"loginUserId":"bob@example.com","firstName":"Bob","lastName":"Builder","userTemplateName":"Agent"}',
    );
  });

  it('queryExistence sends tenant and loginUserId', async () => {
    // Prepare
    server.respond(() => ({
      status: 200,
      body: {
        result: 'SUCCESS',
        message: 'found',
        cloudConnectStatus: 'EXISTS',
        connectUserId: 'cu-1',
      },
    }));

    // Act
    const outcome = await client.send(queryUserExistence, {
      correlationId: 'c',
      loginUserId: 'ada@example.com',
    });

    // Assess
    expect(outcome.body).toMatchObject({ cloudConnectStatus: 'EXISTS', connectUserId: 'cu-1' });
    expectOnlyRequest(server, '/platform-admin/api/users/query-existence', {
      tenant: TENANT,
      loginUserId: 'ada@example.com',
    });
  });

  it('deleteUser sends tenant and loginUserId', async () => {
    // Prepare
    const message = { correlationId: 'c', loginUserId: 'ada@example.com' };

    // Act
    await client.send(deleteUser, message);

    // Assess
    expectOnlyRequest(server, '/platform-admin/api/users/delete-user', {
      tenant: TENANT,
      loginUserId: 'ada@example.com',
    });
  });
});

describe('provisioning outcomes', () => {
  it('reads HTTP 200 with NOT_FOUND as a permanent failure with the platform message', async () => {
    // Prepare
    server.respond(() => ({ status: 200, body: { result: 'NOT_FOUND', message: 'no such user' } }));

    // Act
    const outcome = await client.send(deleteUser, { loginUserId: 'gone@example.com' });

    // Assess
    expect(outcome).toMatchObject({
      category: 'permanent',
      code: 'NOT_FOUND',
      attempts: 1,
      message: 'delete-user: result NOT_FOUND: no such user',
    });
  });
});
