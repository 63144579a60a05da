/**
 * The concurrency rules every `ApiKeySource` shares, whatever it reads the key from: concurrent
 * callers join one read under way (a cold start's first records, or a burst of 401s after a
 * rotation, cost one read), and `refresh(rejectedKey)` reads again only when nobody has replaced
 * the rejected key yet.
 */
export class KeyReadCoordinator {
  readonly #read: (forceFetch: boolean) => Promise<string>;
  #current: string | undefined;
  #inFlight: { readonly promise: Promise<string>; readonly forced: boolean } | undefined;

  /** `read(forceFetch)` returns the key; `forceFetch` bypasses whatever cache the reader has. */
  constructor(read: (forceFetch: boolean) => Promise<string>) {
    this.#read = read;
  }

  /** The key of the last read that succeeded. */
  get current(): string | undefined {
    return this.#current;
  }

  /** Joins a read under way, or starts a cached one. */
  get(): Promise<string> {
    return this.#inFlight?.promise ?? this.#start(false);
  }

  /** A key the platform rejected: a fresh read unless the key was already replaced. */
  async refresh(rejectedKey: string): Promise<string> {
    const pending = this.#inFlight;
    // A forced read under way is the freshest answer there is.
    if (pending?.forced) return pending.promise;
    if (pending) {
      const key = await pending.promise;
      if (key !== rejectedKey) return key;
    } else if (this.#current !== undefined && this.#current !== rejectedKey) {
      return this.#current;
    }
    return this.#inFlight?.forced ? this.#inFlight.promise : this.#start(true);
  }

  #start(forceFetch: boolean): Promise<string> {
    const promise: Promise<string> = this.#read(forceFetch)
      .then((key) => {
        this.#current = key;
        return key;
      })
      .finally(() => {
        if (this.#inFlight?.promise === promise) this.#inFlight = undefined;
      });
    this.#inFlight = { promise, forced: forceFetch };
    return promise;
  }
}
