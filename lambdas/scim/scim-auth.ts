import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKeySource } from '../core/entry/ports';
import { ScimError } from './scim-error';

/**
 * The IdP's bearer token, checked in the function: compared in constant time (digests of equal
 * length), read from its own secret through the same cached, single-flight source as the
 * platform key (`ApiKeySource`: Powertools `SecretsProvider` with a maxAge no longer than the
 * key's). A token that fails the compare forces one fresh read, so a rotated token is accepted
 * at once; the old one is refused once the cache has the new value. Forced reads are spaced by
 * `refetchIntervalMs`, so a flood of wrong tokens cannot turn into one secret read each.
 */
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

const same = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

export const unauthorized = (detail: string): ScimError => new ScimError(401, detail);

export class ScimAuthenticator {
  readonly #tokens: ApiKeySource;
  readonly #now: () => number;
  readonly #refetchIntervalMs: number;
  #lastForcedAt = Number.NEGATIVE_INFINITY;

  constructor(
    tokens: ApiKeySource,
    options: { readonly now?: () => number; readonly refetchIntervalMs?: number } = {},
  ) {
    this.#tokens = tokens;
    this.#now = options.now ?? Date.now;
    this.#refetchIntervalMs = options.refetchIntervalMs ?? 1000;
  }

  /** Resolves when `header` carries the current token; throws a SCIM 401 (or 503) otherwise. */
  async check(header: string | undefined): Promise<void> {
    const presented = BEARER.exec(header ?? '')?.[1];
    if (presented === undefined) {
      throw unauthorized('the Authorization header must carry a bearer token');
    }
    const current = await this.#read(() => this.#tokens.getKey());
    if (same(presented, current)) return;
    const at = this.#now();
    if (at - this.#lastForcedAt >= this.#refetchIntervalMs) {
      this.#lastForcedAt = at;
      const fresh = await this.#read(() => this.#tokens.refreshKey(current));
      if (same(presented, fresh)) return;
    }
    throw unauthorized('the bearer token is not valid');
  }

  async #read(read: () => Promise<string>): Promise<string> {
    try {
      return await read();
    } catch {
      // The token's secret cannot be read now: the request may be good, so the IdP retries.
      throw new ScimError(503, 'the token cannot be checked now; try again later', undefined, 30);
    }
  }
}
