import { ParameterNotFoundError } from '@aws-lambda-powertools/parameters/errors';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type ApiKeySource, MAX_API_KEY_MAX_AGE_SECONDS } from '../entry/ports';
import { type ErrorCategory, SyncError } from '../errors';
import { KeyReadCoordinator } from '../platform/key-read-coordinator';
import type { AwsClientConfig } from './client-config';

export type ApiKeySecretProblem =
  /** The secret (or its current version) does not exist. */
  | 'not-found'
  /** The secret holds binary data, not the key as a string. */
  | 'not-a-string'
  /** The secret string is empty or whitespace. */
  | 'empty'
  /** Secrets Manager could not be asked (network, throttling, access denied, …): see `cause`. */
  | 'unavailable';

/** Reading the API key failed. The message names the secret, never its value. */
export class ApiKeySecretError extends SyncError<'API_KEY_UNREADABLE'> {
  override readonly name = 'ApiKeySecretError';
  readonly code = 'API_KEY_UNREADABLE';
  /** Secrets Manager down may pass; a secret missing or malformed needs the operator. */
  readonly category: ErrorCategory;
  constructor(
    readonly problem: ApiKeySecretProblem,
    readonly secretId: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.category = problem === 'unavailable' ? 'retryable' : 'operator';
  }
}

export interface SecretsManagerApiKeySourceOptions {
  /** Name or ARN of the secret whose SecretString is the API key. */
  readonly secretId: string;
  /** Region of the secret; ignored when `client` is given (the client has its own). */
  readonly secretsRegion: string;
  /** Seconds a fetched key is served from cache: an integer from 1 to MAX_API_KEY_MAX_AGE_SECONDS. */
  readonly maxAgeSeconds: number;
  /** For tests (e.g. an emulator endpoint or call-counting middleware). */
  readonly client?: SecretsManagerClient;
  /** Settings of the client this creates besides its region (unused with `client`). @default the SDK's defaults */
  readonly clientConfig?: AwsClientConfig;
}

/**
 * The rotating platform API key, through Powertools Parameters `SecretsProvider` with an
 * explicit `maxAge`. Concurrent callers share one in-flight fetch (single-flight), so a burst of
 * 401s after a rotation costs one `GetSecretValue`.
 *
 * Surrounding whitespace of the secret string is dropped (a key pasted from a file often ends
 * in a newline, which is not a valid header value).
 */
export class SecretsManagerApiKeySource implements ApiKeySource {
  readonly #provider: SecretsProvider;
  readonly #secretId: string;
  readonly #maxAge: number;
  readonly #reads = new KeyReadCoordinator((forceFetch) => this.#read(forceFetch));

  constructor(options: SecretsManagerApiKeySourceOptions) {
    const { maxAgeSeconds } = options;
    if (
      !Number.isInteger(maxAgeSeconds) ||
      maxAgeSeconds < 1 ||
      maxAgeSeconds > MAX_API_KEY_MAX_AGE_SECONDS
    ) {
      throw new RangeError(
        `API key maxAgeSeconds must be an integer from 1 to ${MAX_API_KEY_MAX_AGE_SECONDS}, got ${maxAgeSeconds}`,
      );
    }
    if (options.secretId.trim() === '') throw new RangeError('API key secretId is empty');
    this.#secretId = options.secretId;
    this.#maxAge = maxAgeSeconds;
    this.#provider = options.client
      ? new SecretsProvider({ awsSdkV3Client: options.client })
      : new SecretsProvider({
          clientConfig: { ...options.clientConfig, region: options.secretsRegion },
        });
  }

  /** Served from the provider's cache within maxAge; concurrent callers share one read. */
  getKey(): Promise<string> {
    return this.#reads.get();
  }

  refreshKey(rejectedKey: string): Promise<string> {
    return this.#reads.refresh(rejectedKey);
  }

  async #read(forceFetch: boolean): Promise<string> {
    const secretId = this.#secretId;
    let value: string | Uint8Array | undefined;
    try {
      value = await this.#provider.get(secretId, {
        maxAge: this.#maxAge,
        forceFetch,
        throwOnMissing: true,
      });
    } catch (error) {
      if (error instanceof ParameterNotFoundError) {
        throw new ApiKeySecretError(
          'not-found',
          secretId,
          `API key secret "${secretId}" not found`,
        );
      }
      // Powertools wraps the SDK error; its name/message describe the failure, not the value.
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      const reason = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
      throw new ApiKeySecretError(
        'unavailable',
        secretId,
        `API key secret "${secretId}" could not be read (${reason})`,
        { cause },
      );
    }
    if (typeof value !== 'string') {
      throw new ApiKeySecretError(
        'not-a-string',
        secretId,
        `API key secret "${secretId}" holds binary data; it must hold the key as a string`,
      );
    }
    const key = value.trim();
    if (key === '') {
      throw new ApiKeySecretError('empty', secretId, `API key secret "${secretId}" is empty`);
    }
    return key;
  }
}
