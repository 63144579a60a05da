import type { Outcome } from '../pipeline/outcome';

/**
 * A circuit breaker for one platform service, shared by every instance of every function that
 * calls it: the state lives in a store (one DynamoDB item) read through a short cache, so an
 * outage costs the platform a probe per cool-down, not one request per message per instance.
 *
 * closed → (a run of transport failures or 5xx in one instance) → open for the cool-down →
 * one instance wins the half-open probe lease → success closes it, failure opens it again.
 */

/** The shared state of one service's breaker. No item = closed. */
export interface BreakerState {
  /** Epoch ms until which nobody calls; after it, one probe may. */
  readonly openUntil: number;
  /** Epoch ms until which a probe is in flight (one instance holds it). */
  readonly probeUntil?: number;
  /** Epoch ms when this outage was first seen: how long the service has been down. */
  readonly openedAt: number;
}

/** Where the breakers keep their state (the ledger table in a stack; memory locally). */
export interface BreakerStore {
  read(service: string): Promise<BreakerState | undefined>;
  /** Opens (or re-opens after a failed probe) until `openUntil`; keeps the first `openedAt`. */
  open(service: string, openUntil: number, now: number): Promise<void>;
  /** Takes the probe lease when the cool-down is over and no probe is in flight. */
  claimProbe(service: string, now: number, leaseUntil: number): Promise<boolean>;
  close(service: string): Promise<void>;
}

export interface CircuitBreakerSettings {
  /** Consecutive failures one instance sees before it opens the breaker. @default 5 */
  readonly failureThreshold: number;
  /** How long the breaker stays open before a probe. @default 30000 */
  readonly coolDownMs: number;
  /** How long a probe may take before another instance may probe. @default 10000 */
  readonly probeLeaseMs: number;
  /** How long a read of the shared state is trusted. @default 5000 */
  readonly cacheMs: number;
}

export const DEFAULT_BREAKER_SETTINGS: CircuitBreakerSettings = {
  failureThreshold: 5,
  coolDownMs: 30_000,
  probeLeaseMs: 10_000,
  cacheMs: 5_000,
};

/** What the breaker says about the next request. */
export type Permit =
  | { readonly kind: 'call'; readonly probe: boolean }
  | { readonly kind: 'hold'; readonly retryAfterMs: number; readonly downForMs: number };

/** What the breaker tells whoever watches it (metrics, logs, the local run's report). */
export interface BreakerEvents {
  changed?(service: string, state: 'open' | 'closed' | 'probe', now: number): void;
  /** The store could not be read or written: the breaker works on what this instance saw. */
  storeFailed?(service: string, error: unknown): void;
}

/** Failures that say the service is down, not that the request was wrong. */
export const isOutageSignal = (outcome: Outcome): boolean =>
  outcome.code === 'NETWORK_ERROR' ||
  outcome.code === 'TIMEOUT' ||
  (outcome.httpStatus !== undefined && outcome.httpStatus >= 500);

export class CircuitBreaker {
  readonly #service: string;
  readonly #store: BreakerStore;
  readonly #settings: CircuitBreakerSettings;
  readonly #now: () => number;
  readonly #events: BreakerEvents;
  #failures = 0;
  #cached: { state: BreakerState | undefined; readAt: number } | undefined;
  /** A read of the store under way: callers that find the cache stale meanwhile join it. */
  #reading: Promise<BreakerState | undefined> | undefined;

  constructor(
    service: string,
    store: BreakerStore,
    options: {
      readonly settings?: Partial<CircuitBreakerSettings>;
      readonly now?: () => number;
      readonly events?: BreakerEvents;
    } = {},
  ) {
    this.#service = service;
    this.#store = store;
    this.#settings = { ...DEFAULT_BREAKER_SETTINGS, ...options.settings };
    this.#now = options.now ?? Date.now;
    this.#events = options.events ?? {};
  }

  /** True while this instance believes the service is down (for the PlatformUnavailable metric). */
  get isOpen(): boolean {
    return this.#cached?.state !== undefined;
  }

  async #state(now: number): Promise<BreakerState | undefined> {
    if (this.#cached !== undefined && now - this.#cached.readAt < this.#settings.cacheMs) {
      return this.#cached.state;
    }
    if (this.#reading === undefined) {
      const reading = this.#read(now).finally(() => {
        if (this.#reading === reading) this.#reading = undefined;
      });
      this.#reading = reading;
    }
    return this.#reading;
  }

  /** Reads the store; never rejects (a failed read keeps what this instance saw). */
  async #read(now: number): Promise<BreakerState | undefined> {
    try {
      const state = await this.#store.read(this.#service);
      this.#cached = { state, readAt: now };
      return state;
    } catch (error) {
      // Deliberately degraded, never silent: without the store each instance breaks alone.
      this.#events.storeFailed?.(this.#service, error);
      return this.#cached?.state;
    }
  }

  /**
   * Starts reading the shared state when the cached one is stale, without waiting for it: the
   * next `permit()` joins that read instead of starting its own. Lets an invocation read the
   * state while it does other work (the ledger's claim) before its first request.
   */
  prefetch(): void {
    void this.#state(this.#now());
  }

  /**
   * What this instance already knows, without reading the store: a hold while its last look
   * saw the breaker open and the cool-down not over. Lets a message wait before any other work.
   */
  knownHold(): Permit | undefined {
    const state = this.#cached?.state;
    const now = this.#now();
    if (state === undefined || now >= state.openUntil) return undefined;
    return { kind: 'hold', retryAfterMs: state.openUntil - now, downForMs: now - state.openedAt };
  }

  /** Asks before a request: call (maybe as the probe), or hold the message until later. */
  async permit(): Promise<Permit> {
    const now = this.#now();
    const state = await this.#state(now);
    if (state === undefined) return { kind: 'call', probe: false };
    if (now < state.openUntil) {
      return { kind: 'hold', retryAfterMs: state.openUntil - now, downForMs: now - state.openedAt };
    }
    let won: boolean;
    try {
      won = await this.#store.claimProbe(this.#service, now, now + this.#settings.probeLeaseMs);
    } catch (error) {
      this.#events.storeFailed?.(this.#service, error);
      won = true;
    }
    if (!won) {
      // Another instance is probing (or has just closed the breaker): look again, afresh.
      this.#cached = undefined;
      if ((await this.#read(now)) === undefined) return { kind: 'call', probe: false };
      return {
        kind: 'hold',
        retryAfterMs: this.#settings.probeLeaseMs,
        downForMs: now - state.openedAt,
      };
    }
    this.#events.changed?.(this.#service, 'probe', now);
    return { kind: 'call', probe: true };
  }

  /** Tells the breaker how a request it permitted ended. */
  async record(outcome: Outcome, permit: Permit): Promise<void> {
    const now = this.#now();
    if (!isOutageSignal(outcome)) {
      this.#failures = 0;
      if (permit.kind === 'call' && (permit.probe || this.isOpen)) {
        await this.#write(() => this.#store.close(this.#service));
        this.#cached = { state: undefined, readAt: now };
        this.#events.changed?.(this.#service, 'closed', now);
      }
      return;
    }
    this.#failures += 1;
    const probeFailed = permit.kind === 'call' && permit.probe;
    if (!probeFailed && (this.#failures < this.#settings.failureThreshold || this.isOpen)) return;
    const openUntil = now + this.#settings.coolDownMs;
    // Open here before the shared write: a failure that ends while it is in flight must not
    // open the breaker a second time.
    this.#cached = {
      state: { openUntil, openedAt: this.#cached?.state?.openedAt ?? now },
      readAt: now,
    };
    this.#events.changed?.(this.#service, 'open', now);
    await this.#write(() => this.#store.open(this.#service, openUntil, now));
  }

  async #write(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.#events.storeFailed?.(this.#service, error);
    }
  }
}
