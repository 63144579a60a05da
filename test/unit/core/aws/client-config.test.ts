import { type AddressInfo, createServer, type Socket } from 'node:net';
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaClientConfig } from '../../../../lambdas/core/aws/client-config';
import {
  credentialsTreatedAsExpired,
  defaultProvider,
} from '../../../../lambdas/shims/aws-credential-provider-node';

const LAMBDA_ENV = {
  AWS_REGION: 'eu-central-1',
  AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'token',
};

const stubEnvironment = (env: Readonly<Record<string, string>>): void => {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
};

afterEach(() => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
});

describe('lambdaClientConfig', () => {
  it('hands the region and the environment credentials to every client', async () => {
    // Prepare
    stubEnvironment(LAMBDA_ENV);

    // Act
    const config = lambdaClientConfig();

    // Assess
    expect(config.region).toBe('eu-central-1');
    expect(typeof config.credentials).toBe('function');
    if (typeof config.credentials !== 'function') return;
    expect(await config.credentials()).toMatchObject({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
    });
  });

  it('reads the environment each time the SDK asks, so a rotated token is seen', async () => {
    // Prepare
    stubEnvironment(LAMBDA_ENV);
    const { credentials } = lambdaClientConfig();
    if (typeof credentials !== 'function') throw new Error('expected a credential provider');
    await credentials();
    vi.stubEnv('AWS_SESSION_TOKEN', 'rotated');

    // Act
    const fresh = await credentials();

    // Assess
    expect(fresh.sessionToken).toBe('rotated');
  });

  it.each([
    ['no keys are set', { AWS_REGION: 'eu-central-1' }],
    [
      'a profile is set (it wins over keys in the SDK chain)',
      { ...LAMBDA_ENV, AWS_PROFILE: 'dev' },
    ],
  ])('leaves the credentials to the SDK when %s', (_case, env) => {
    // Act
    const config = lambdaClientConfig(env);

    // Assess
    expect(config.region).toBe('eu-central-1');
    expect(config.credentials).toBeUndefined();
  });

  it('gives up on an attempt the service never answers after 5 s', async () => {
    // Prepare: a service that takes the connection and says nothing.
    stubEnvironment(LAMBDA_ENV);
    const sockets: Socket[] = [];
    let connected: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      connected = resolve;
    });
    const server = createServer((socket) => {
      sockets.push(socket);
      connected();
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const { port } = server.address() as AddressInfo;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const client = new SQSClient({
      ...lambdaClientConfig(),
      endpoint: `http://127.0.0.1:${port}`,
      maxAttempts: 1,
    });
    const outcome = client.send(new GetQueueUrlCommand({ QueueName: 'q' })).then(
      () => 'answered',
      (error: Error) => error.name,
    );
    await reached;

    // Act
    await vi.advanceTimersByTimeAsync(4_999);
    const before = await Promise.race([outcome, Promise.resolve('waiting')]);
    await vi.advanceTimersByTimeAsync(1);

    // Assess
    try {
      expect(before).toBe('waiting');
      expect(await outcome).toBe('TimeoutError');
    } finally {
      client.destroy();
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});

describe('the bundle’s credential chain (lambdas/shims/aws-credential-provider-node)', () => {
  it('is the environment, what the SDK chain finds first in Lambda', async () => {
    // Prepare
    stubEnvironment(LAMBDA_ENV);

    // Act
    const credentials = await defaultProvider({})();

    // Assess
    expect(credentials).toMatchObject({ accessKeyId: 'ASIAEXAMPLE', sessionToken: 'token' });
  });

  it('fails as the SDK does when the environment holds no keys', async () => {
    // Prepare
    vi.stubEnv('AWS_ACCESS_KEY_ID', undefined);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', undefined);

    // Act
    const reading = defaultProvider({})();

    // Assess
    await expect(reading).rejects.toMatchObject({
      name: 'CredentialsProviderError',
      message: 'Unable to find environment variable credentials.',
    });
  });

  it.each([
    [undefined, false],
    [new Date(Date.now() + 3_600_000), false],
    [new Date(Date.now() + 60_000), true],
  ])(
    'treats credentials expiring at %s as expired: %s (5 minutes early, as the SDK)',
    (expiration, expired) => {
      // Act
      const verdict = credentialsTreatedAsExpired(expiration ? { expiration } : {});

      // Assess
      expect(verdict).toBe(expired);
    },
  );
});
