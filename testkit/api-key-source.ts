import { type ApiKeySource, MAX_API_KEY_MAX_AGE_SECONDS } from '../lambdas/core/entry/ports';
import { KeyReadCoordinator } from '../lambdas/core/platform/key-read-coordinator';

/** The deployment's default (`apiKey.maxAgeSeconds` in lib/config.ts). */
export const DEFAULT_API_KEY_MAX_AGE_SECONDS = 900;

/** A stored secret value. */
export interface SecretVersion {
  readonly value: string;
  /** 1 for the first value, +1 per rotation. */
  readonly version: number;
}

const nonEmpty = (value: string): string => {
  if (value.trim() === '') throw new RangeError('the API key must not be empty');
  return value;
};

/**
 * Plays Secrets Manager holding the platform API key. Counts reads so a run can show how often
 * the key was fetched (the key source's cache is meant to keep that low).
 */
export class InMemorySecretStore {
  #current: SecretVersion;
  #reads = 0;
  /** When set, reads fail with it (a Secrets Manager outage: a cached key is still served). */
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

  /** The current value, without counting a read. */
  get value(): string {
    return this.#current.value;
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

export interface InMemoryApiKeySourceOptions {
  readonly store: InMemorySecretStore;
  /** Seconds a read key is served from cache: 1..MAX_API_KEY_MAX_AGE_SECONDS. @default 900 */
  readonly maxAgeSeconds?: number;
  /** Epoch ms. @default Date.now */
  readonly now?: () => number;
}

/**
 * `ApiKeySource` over an in-memory secret store, with the deployed source's behaviour: a
 * max-age cache, and a single-flight `refreshKey` that reads the store once however many
 * callers were rejected with the same key. Records its calls for tests.
 *
 * `new InMemoryApiKeySource(key)` is a warm source (a container that has read `key` once) over
 * a store of its own: `storedKey` changes what the next refresh reads.
 */
export class InMemoryApiKeySource implements ApiKeySource {
  readonly store: InMemorySecretStore;
  getKeyCalls = 0;
  /** The rejected key of each `refreshKey` call, in order. */
  readonly refreshCalls: string[] = [];
  /**
   * When set, `getKey` and `refreshKey` fail with it even with a key in cache (the source
   * itself is broken); a store outage is `store.failWith`.
   */
  failWith: Error | undefined;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #cached: { readonly key: string; readonly readAt: number } | undefined;
  readonly #reads = new KeyReadCoordinator(() => this.#read());

  constructor(options: InMemoryApiKeySourceOptions | string) {
    const o = typeof options === 'string' ? { store: new InMemorySecretStore(options) } : options;
    const maxAge = o.maxAgeSeconds ?? DEFAULT_API_KEY_MAX_AGE_SECONDS;
    // The deployed key source's bound: the platform allows caching the key for an hour.
    if (!Number.isInteger(maxAge) || maxAge < 1 || maxAge > MAX_API_KEY_MAX_AGE_SECONDS) {
      throw new RangeError(
        `maxAgeSeconds must be an integer from 1 to ${MAX_API_KEY_MAX_AGE_SECONDS}, got ${maxAge}`,
      );
    }
    this.store = o.store;
    this.#maxAgeMs = maxAge * 1000;
    this.#now = o.now ?? Date.now;
    // The store answers at once, so the key is in cache before anyone can ask.
    if (typeof options === 'string') void this.#reads.get();
  }

  /** The key in the store: what the next read or refresh returns. */
  get storedKey(): string {
    return this.store.value;
  }

  set storedKey(value: string) {
    this.store.rotate(value);
  }

  getKey(): Promise<string> {
    this.getKeyCalls += 1;
    if (this.failWith) return Promise.reject(this.failWith);
    const cached = this.#cached;
    if (cached && this.#now() - cached.readAt < this.#maxAgeMs) return Promise.resolve(cached.key);
    return this.#reads.get();
  }

  refreshKey(rejectedKey: string): Promise<string> {
    this.refreshCalls.push(rejectedKey);
    if (this.failWith) return Promise.reject(this.failWith);
    return this.#reads.refresh(rejectedKey);
  }

  /** The store has no cache of its own, so every read (forced or not) reads it. */
  async #read(): Promise<string> {
    const { value } = await this.store.read();
    const key = value.trim();
    this.#cached = { key, readAt: this.#now() };
    return key;
  }
}
