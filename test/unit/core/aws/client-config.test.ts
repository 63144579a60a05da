import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  environmentCredentials,
  lambdaClientConfig,
} from '../../../../lambdas/core/aws/client-config';
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

describe('environmentCredentials', () => {
  it.each([
    ['the keys and session token Lambda sets', LAMBDA_ENV, {}],
    [
      'the optional fields the SDK reads too',
      {
        ...LAMBDA_ENV,
        AWS_CREDENTIAL_EXPIRATION: '2030-01-01T00:00:00Z',
        AWS_CREDENTIAL_SCOPE: 'eu-central-1',
        AWS_ACCOUNT_ID: '123456789012',
      },
      {
        expiration: new Date('2030-01-01T00:00:00Z'),
        credentialScope: 'eu-central-1',
        accountId: '123456789012',
      },
    ],
  ])('reads %s, as the SDK fromEnv does', async (_case, env, extra) => {
    // Act
    const credentials = await environmentCredentials(env)();

    // Assess
    expect(credentials).toEqual({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
      ...extra,
    });
  });

  it('reads the environment each time it is asked, not once', async () => {
    // Prepare
    const env: Record<string, string> = { ...LAMBDA_ENV };
    const provider = environmentCredentials(env);
    await provider();
    env.AWS_SESSION_TOKEN = 'rotated';

    // Act
    const credentials = await provider();

    // Assess
    expect(credentials.sessionToken).toBe('rotated');
  });

  it('fails naming the variables when the keys are missing', async () => {
    // Act
    const reading = environmentCredentials({ AWS_REGION: 'eu-central-1' })();

    // Assess
    await expect(reading).rejects.toThrow(
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set',
    );
  });
});

describe('lambdaClientConfig', () => {
  it('hands the region and the environment credentials to every client', async () => {
    // Act
    const config = lambdaClientConfig(LAMBDA_ENV);

    // Assess
    expect(config.region).toBe('eu-central-1');
    expect(typeof config.credentials).toBe('function');
    if (typeof config.credentials !== 'function') return;
    expect(await config.credentials()).toMatchObject({ accessKeyId: 'ASIAEXAMPLE' });
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
    expect(config).toEqual({ region: 'eu-central-1' });
  });
});

describe('the bundle’s credential chain (lambdas/shims/aws-credential-provider-node)', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('is the environment, what the SDK chain finds first in Lambda', async () => {
    // Prepare
    for (const [name, value] of Object.entries(LAMBDA_ENV)) vi.stubEnv(name, value);

    // Act
    const credentials = await defaultProvider({})();

    // Assess
    expect(credentials).toMatchObject({ accessKeyId: 'ASIAEXAMPLE', sessionToken: 'token' });
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
