import type { ApiKeySource } from '../lambdas/core/ports';

/**
 * ApiKeySource for tests: `storedKey` plays the secret in Secrets Manager, the cached key is
 * what `getKey` serves until a refresh reads the store again. Counts calls so tests can assert
 * "exactly one refresh".
 */
export class InMemoryApiKeySource implements ApiKeySource {
  storedKey: string;
  #cachedKey: string;
  getKeyCalls = 0;
  readonly refreshCalls: string[] = [];
  /** When set, the next getKey / refreshKey calls fail with it (a Secrets Manager outage). */
  failWith: Error | undefined;

  constructor(key: string) {
    this.storedKey = key;
    this.#cachedKey = key;
  }

  async getKey(): Promise<string> {
    this.getKeyCalls += 1;
    if (this.failWith) throw this.failWith;
    return this.#cachedKey;
  }

  async refreshKey(rejectedKey: string): Promise<string> {
    this.refreshCalls.push(rejectedKey);
    if (this.failWith) throw this.failWith;
    if (this.#cachedKey === rejectedKey) this.#cachedKey = this.storedKey;
    return this.#cachedKey;
  }
}
