import { type ErrorCategory, isErrorOf, SyncError } from '../lambdas/core/errors';

/**
 * Errors the operator commands report as one clear message (no stack trace), and the
 * translation of AWS SDK errors into what the operator has to do about them.
 */

/** A failure the operator can act on; printed as-is. Exit code 1. */
export class OpsError extends SyncError<'OPS_FAILED' | 'USAGE'> {
  override readonly name: string = 'OpsError';
  readonly code: 'OPS_FAILED' | 'USAGE' = 'OPS_FAILED';
  readonly category: ErrorCategory = 'operator';
}

export const USAGE_EXIT = 2;

/**
 * Wrong command line: unknown command, option or action. Exit code 2, as for an input file that
 * cannot be read (`InputRefused`).
 */
export class UsageError extends OpsError {
  override readonly name = 'UsageError';
  override readonly code = 'USAGE';
  override readonly category = 'usage';
}

/** The exit code of a failed command: a usage error or an unreadable input file 2, else 1. */
export const exitCodeOf = (error: unknown): number => (isErrorOf(error, 'usage') ? USAGE_EXIT : 1);

const CREDENTIAL_HELP =
  'Set AWS_PROFILE (after `aws sso login` when the profile uses SSO), or AWS_ACCESS_KEY_ID and ' +
  'AWS_SECRET_ACCESS_KEY (plus AWS_SESSION_TOKEN for temporary credentials), or run where an IAM ' +
  'role is available.';

const MISSING_CREDENTIALS = new Set(['CredentialsProviderError']);
const EXPIRED_CREDENTIALS = new Set([
  'ExpiredToken',
  'ExpiredTokenException',
  'RequestExpired',
  'TokenRefreshRequired',
]);
const REJECTED_CREDENTIALS = new Set([
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidSignatureException',
  'IncompleteSignature',
  'InvalidSecurity',
  'AuthFailure',
]);
const ACCESS_DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'AuthorizationError']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
]);

const errorName = (error: unknown): string =>
  error instanceof Error ? error.name : typeof error === 'string' ? error : 'Error';

/** Credentials are missing, expired or rejected: no other call can succeed either. */
export const isCredentialError = (error: unknown): boolean => {
  const name = errorName(error);
  return (
    MISSING_CREDENTIALS.has(name) || EXPIRED_CREDENTIALS.has(name) || REJECTED_CREDENTIALS.has(name)
  );
};

/** The SQS error says the queue is gone or access to it is denied: retrying will not help. */
export const isQueueLevelError = (error: unknown): boolean => {
  const name = errorName(error);
  return (
    isCredentialError(error) ||
    ACCESS_DENIED.has(name) ||
    name === 'QueueDoesNotExist' ||
    name === 'AWS.SimpleQueueService.NonExistentQueue' ||
    name.startsWith('KmsAccessDenied') ||
    name.startsWith('KmsDisabled') ||
    name.startsWith('KmsNotFound')
  );
};

/**
 * One line saying what went wrong and what to do. AWS error messages name operations and
 * resources, never message bodies, so they are safe to show.
 */
export const describeError = (error: unknown): string => {
  // Written for the operator: a command's own failure, or a usage error (an input file's too).
  if (error instanceof OpsError || isErrorOf(error, 'usage')) return error.message;
  const name = errorName(error);
  const message = error instanceof Error ? error.message : String(error);
  if (MISSING_CREDENTIALS.has(name)) {
    return `No AWS credentials found (${message}). ${CREDENTIAL_HELP}`;
  }
  if (EXPIRED_CREDENTIALS.has(name)) {
    return `The AWS credentials have expired (${name}). Refresh them (e.g. \`aws sso login\`). ${CREDENTIAL_HELP}`;
  }
  if (REJECTED_CREDENTIALS.has(name)) {
    return `AWS rejected the credentials (${name}: ${message}). ${CREDENTIAL_HELP}`;
  }
  if (ACCESS_DENIED.has(name)) {
    return `AWS denied the request (${name}: ${message}). The identity in use needs the permission named above; see docs/operations.md for the permissions each command uses.`;
  }
  if (/region is missing/i.test(message)) {
    return 'No AWS region: set AWS_REGION (or a profile with a region), pin deployment.region in the config, or pass --region.';
  }
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) {
    const host = (error as Error & { hostname?: unknown }).hostname;
    return `Cannot reach AWS (${code}${typeof host === 'string' ? ` ${host}` : ''}). Check the network, the region and any AWS_ENDPOINT_URL_* variable.`;
  }
  return `${name}: ${message}`;
};
