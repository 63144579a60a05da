import { describe, expect, it } from 'vitest';
import { describeError, isQueueLevelError, OpsError } from '../../../ops/errors';

const awsError = (name: string, message = 'x', extra: object = {}): Error =>
  Object.assign(new Error(message), { name, ...extra });

describe('describeError', () => {
  it('tells what to set when credentials are missing, expired or rejected', () => {
    // Act
    const missing = describeError(
      awsError('CredentialsProviderError', 'Could not load credentials'),
    );
    const expired = describeError(awsError('ExpiredTokenException'));
    const rejected = describeError(
      awsError('InvalidClientTokenId', 'The security token is invalid'),
    );

    // Assess
    for (const text of [missing, expired, rejected]) {
      expect(text).toContain('AWS_PROFILE');
      expect(text).toContain('AWS_ACCESS_KEY_ID');
    }
    expect(missing).toMatch(/^No AWS credentials found/);
    expect(expired).toMatch(/have expired/);
    expect(rejected).toContain('The security token is invalid');
  });

  it('explains a missing region and an unreachable endpoint', () => {
    // Act
    const region = describeError(new Error('Region is missing'));
    const network = describeError(
      awsError('Error', 'connect ECONNREFUSED', { code: 'ECONNREFUSED', hostname: 'localhost' }),
    );

    // Assess
    expect(region).toContain('set AWS_REGION');
    expect(network).toContain('Cannot reach AWS (ECONNREFUSED localhost)');
    expect(network).toContain('AWS_ENDPOINT_URL_');
  });

  it('passes an OpsError through and names any other error', () => {
    // Act / Assess
    expect(describeError(new OpsError('Stack X does not exist'))).toBe('Stack X does not exist');
    expect(describeError(awsError('ThrottlingException', 'Rate exceeded'))).toBe(
      'ThrottlingException: Rate exceeded',
    );
  });

  it('treats a missing queue or denied access as failing every message, a throttle not', () => {
    // Act / Assess
    expect(isQueueLevelError(awsError('QueueDoesNotExist'))).toBe(true);
    expect(isQueueLevelError(awsError('AccessDenied'))).toBe(true);
    expect(isQueueLevelError(awsError('KmsAccessDenied'))).toBe(true);
    expect(isQueueLevelError(awsError('RequestThrottled'))).toBe(false);
  });
});
