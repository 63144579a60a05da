/** Fault injection settings; every rate is a share 0..1 of spec requests. */
export interface FaultSettings {
  /** Added to every spec request before it is answered. */
  readonly latencyMs?: number;
  /** Answered HTTP 500, 502 or 503; not applied. */
  readonly serverErrorRate?: number;
  /** Answered HTTP 429; not applied. */
  readonly throttleRate?: number;
  /** When set, 429 responses carry `Retry-After: <seconds>`. */
  readonly retryAfterSeconds?: number;
  /** Socket destroyed without a response; not applied. */
  readonly connectionResetRate?: number;
  /** HTTP 200 with FAILED (realtime) / FAIL (provisioning); not applied. */
  readonly failedStatusRate?: number;
  /** HTTP 200 with an HTML error page instead of JSON; not applied. */
  readonly malformedBodyRate?: number;
  /** Never answered until the client gives up; not applied. */
  readonly hangRate?: number;
  /** APPLIED, then the socket is destroyed: the client never sees the outcome. */
  readonly lostResponseRate?: number;
  /**
   * The platform's own rate limit: spec requests beyond this many per second (a token bucket
   * holding one second's worth) are answered HTTP 429, with `Retry-After: 1` unless
   * `retryAfterSeconds` says otherwise. Counted as throttle faults.
   */
  readonly rateLimitPerSecond?: number;
  /**
   * When set, the rates apply only to requests of these endpoints (path suffixes such as
   * `changeCampaignRecordStatus`); the others are answered as if no fault were set.
   */
  readonly endpoints?: readonly string[];
}

export type FaultKind =
  | 'connectionReset'
  | 'hang'
  | 'serverError'
  | 'throttle'
  | 'malformedBody'
  | 'failedStatus'
  | 'lostResponse';

export const FAULT_KINDS: readonly FaultKind[] = [
  'connectionReset',
  'hang',
  'serverError',
  'throttle',
  'malformedBody',
  'failedStatus',
  'lostResponse',
];

const RATE_OF: Readonly<Record<FaultKind, keyof FaultSettings>> = {
  connectionReset: 'connectionResetRate',
  hang: 'hangRate',
  serverError: 'serverErrorRate',
  throttle: 'throttleRate',
  malformedBody: 'malformedBodyRate',
  failedStatus: 'failedStatusRate',
  lostResponse: 'lostResponseRate',
};

const RATE_KEYS = Object.values(RATE_OF);
const ALL_KEYS: readonly string[] = [
  ...RATE_KEYS,
  'latencyMs',
  'retryAfterSeconds',
  'rateLimitPerSecond',
  'endpoints',
];

/**
 * Checks settings from code, the CLI or the admin endpoint; throws an Error naming the
 * offending field. Rates are exclusive shares of one draw, so they may not add up beyond 1.
 */
export const validateFaultSettings = (input: unknown): FaultSettings => {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new Error('fault settings must be a JSON object');
  }
  const entries = Object.entries(input);
  for (const [key, value] of entries) {
    if (!ALL_KEYS.includes(key)) throw new Error(`unknown fault setting "${key}"`);
    if (value === undefined) continue;
    if (key === 'endpoints') {
      if (!Array.isArray(value) || !value.every((e) => typeof e === 'string')) {
        throw new Error('fault setting "endpoints" must be a list of endpoint names');
      }
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`fault setting "${key}" must be a non-negative number`);
    }
    if (RATE_KEYS.includes(key as keyof FaultSettings) && value > 1) {
      throw new Error(`fault setting "${key}" must be between 0 and 1`);
    }
  }
  const settings = input as FaultSettings;
  const total = RATE_KEYS.reduce(
    (sum, key) => sum + ((settings[key] as number | undefined) ?? 0),
    0,
  );
  if (total > 1 + 1e-9) throw new Error('fault rates must add up to at most 1');
  return { ...settings };
};

/** mulberry32: small, fast, seedable; good enough to pick fault shares reproducibly. */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

export const SERVER_ERROR_STATUSES = [500, 502, 503] as const;
export type ServerErrorStatus = (typeof SERVER_ERROR_STATUSES)[number];

/** Decides, per spec request, which fault (if any) to inject. */
export class FaultInjector {
  private settings: FaultSettings;
  private random: () => number;
  /** The rate limit's bucket: requests left, and when it was last filled (epoch ms). */
  private tokens = 0;
  private filledAt = 0;

  constructor(
    settings: FaultSettings = {},
    private readonly seed = 1,
    private readonly now: () => number = Date.now,
  ) {
    this.settings = validateFaultSettings(settings);
    this.random = seededRandom(seed);
    this.fillBucket();
  }

  private fillBucket(): void {
    this.tokens = this.settings.rateLimitPerSecond ?? 0;
    this.filledAt = this.now();
  }

  /** Takes a request from the rate limit's bucket; false when it is empty. */
  private withinRateLimit(): boolean {
    const limit = this.settings.rateLimitPerSecond;
    if (limit === undefined) return true;
    const now = this.now();
    this.tokens = Math.min(limit, this.tokens + ((now - this.filledAt) / 1000) * limit);
    this.filledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  get current(): FaultSettings {
    return { ...this.settings };
  }

  /** Replaces all settings (omitted ones switch off) and restarts the seeded sequence. */
  set(settings: FaultSettings): void {
    this.settings = validateFaultSettings(settings);
    this.random = seededRandom(this.seed);
    this.fillBucket();
  }

  get latencyMs(): number {
    return this.settings.latencyMs ?? 0;
  }

  get retryAfterSeconds(): number | undefined {
    return (
      this.settings.retryAfterSeconds ??
      (this.settings.rateLimitPerSecond === undefined ? undefined : 1)
    );
  }

  /** The rate limit first, then one draw per request; the rates are consecutive bands of [0, 1). */
  decide(endpoint?: string): FaultKind | undefined {
    if (!this.withinRateLimit()) return 'throttle';
    const { endpoints } = this.settings;
    if (endpoints !== undefined && (endpoint === undefined || !endpoints.includes(endpoint))) {
      return undefined;
    }
    const rate = (kind: FaultKind) => (this.settings[RATE_OF[kind]] as number | undefined) ?? 0;
    const anyRate = FAULT_KINDS.some((kind) => rate(kind) > 0);
    if (!anyRate) return undefined;
    const draw = this.random();
    let upper = 0;
    for (const kind of FAULT_KINDS) {
      upper += rate(kind);
      if (draw < upper) return kind;
    }
    return undefined;
  }

  serverErrorStatus(): ServerErrorStatus {
    const index = Math.floor(this.random() * SERVER_ERROR_STATUSES.length);
    return SERVER_ERROR_STATUSES[index] ?? 500;
  }
}
