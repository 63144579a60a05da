import { KeyReadCoordinator } from '../../lambdas/core/key-read-coordinator';
import { type ApiKeySource, MAX_API_KEY_MAX_AGE_SECONDS } from '../../lambdas/core/ports';

export const DEFAULT_API_KEY_MAX_AGE_SECONDS = 900;

/** A stored secret value: plays Secrets Manager for the local run. */
export interface SecretVersion {
  readonly value: string;
  /** 1 for the first value, +1 per rotation. */
  readonly version: number;
}

/**
 * The local "secret store" holding the platform API key. Counts reads so a run can show how
 * often the key was fetched (the cache is meant to keep that low).
 */
export class LocalSecretStore {
  #current: SecretVersion;
  #reads = 0;
  /** When set, reads fail with it (a Secrets Manager outage). */
  failWith: Error | undefined;

  constructor(value: string) {
    this.#current = { value: nonEmpty(value), version: 1 };
  }

  get reads(): number {
    return this.#reads;
  }

  get version(): number {
    return this.#current.version;
  }

  /** Like GetSecretValue: the current value. */
  async read(): Promise<SecretVersion> {
    this.#reads += 1;
    if (this.failWith) throw this.failWith;
    return this.#current;
  }

  /** Like PutSecretValue during a rotation: a new current version. */
  rotate(value: string): SecretVersion {
    this.#current = { value: nonEmpty(value), version: this.#current.version + 1 };
    return this.#current;
  }
}

const nonEmpty = (value: string): string => {
  if (value.trim() === '') throw new RangeError('the API key must not be empty');
  return value;
};

export interface LocalApiKeySourceOptions {
  readonly store: LocalSecretStore;
  /** Seconds a read key is served from cache: 1..MAX_API_KEY_MAX_AGE_SECONDS. @default 900 */
  readonly maxAgeSeconds?: number;
  /** Epoch ms, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/**
 * `ApiKeySource` over the local secret store, with the deployed source's behaviour: a
 * max-age cache, and a single-flight `refreshKey` that reads the store once however many
 * callers were rejected with the same key.
 */
export class LocalApiKeySource implements ApiKeySource {
  readonly #store: LocalSecretStore;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #cached: { readonly key: string; readonly readAt: number } | undefined;
  readonly #reads = new KeyReadCoordinator(() => this.#read());

  constructor(options: LocalApiKeySourceOptions) {
    const maxAge = options.maxAgeSeconds ?? DEFAULT_API_KEY_MAX_AGE_SECONDS;
    // The deployed key source's bound: the platform allows caching the key for an hour.
    if (!Number.isInteger(maxAge) || maxAge < 1 || maxAge > MAX_API_KEY_MAX_AGE_SECONDS) {
      throw new RangeError(
        `maxAgeSeconds must be an integer from 1 to ${MAX_API_KEY_MAX_AGE_SECONDS}, got ${maxAge}`,
      );
    }
    this.#store = options.store;
    this.#maxAgeMs = maxAge * 1000;
    this.#now = options.now ?? Date.now;
  }

  getKey(): Promise<string> {
    const cached = this.#cached;
    if (cached && this.#now() - cached.readAt < this.#maxAgeMs) return Promise.resolve(cached.key);
    return this.#reads.get();
  }

  refreshKey(rejectedKey: string): Promise<string> {
    return this.#reads.refresh(rejectedKey);
  }

  /** The store has no cache of its own, so every read (forced or not) reads it. */
  async #read(): Promise<string> {
    const { value } = await this.#store.read();
    const key = value.trim();
    this.#cached = { key, readAt: this.#now() };
    return key;
  }
}
