import type { ApiKeySource } from '../entry/ports';
import type { Observer } from '../observability/observer';
import type { AnyAction } from '../pipeline/action';
import { mayHaveBeenApplied, type Outcome, type OutcomeCategory } from '../pipeline/outcome';
import type { PlatformGuard } from '../resilience/platform-guard';
import { AUTH_REJECTION_CODES } from './classify';
import { type HttpResult, type HttpTransport, postJson } from './http';
import { PLATFORM_SERVICES } from './platform-services';
import {
  DEFAULT_HTTP_SETTINGS,
  type HttpSettings,
  type PlatformSettings,
} from './platform-settings';
import {
  type AttemptBudget,
  type AttemptResult,
  defaultRetryDeps,
  parseRetryAfter,
  type RetryDeps,
  withRetries,
} from './retry';

/** One HTTP request made for a call, reported for metrics and logs (no key, no body). */
export interface AttemptInfo {
  /** The message the request was made for, when the caller named it. */
  readonly correlationId?: string;
  /** Endpoint suffix, e.g. `addOrUpdateCampaignRecord` or `add-user`. */
  readonly endpoint: string;
  /** 1-based number of the HTTP request within this call. */
  readonly attempt: number;
  readonly httpStatus?: number;
  readonly code: string;
  readonly category: OutcomeCategory;
  readonly latencyMs: number;
}

export interface CallOptions {
  /** Epoch ms; no attempt or backoff sleep may run past it (e.g. the Lambda's end minus a margin). */
  readonly deadline?: number;
  /** The message this call is made for: named in every attempt the observer sees. */
  readonly correlationId?: string;
  /**
   * Return at the first failure that may still have been applied instead of retrying it, so
   * the action can look before it repeats a write that is not harmless to repeat. @default false
   */
  readonly stopAtDoubt?: boolean;
  /** Attempts for transient failures in this call. @default the HTTP settings' maxAttempts */
  readonly maxAttempts?: number;
}

/** Test seams: transport, clock and randomness. */
export interface ClientDeps {
  /** Sends one HTTP request. @default postJson */
  readonly transport?: HttpTransport;
  readonly sleep?: RetryDeps['sleep'];
  readonly random?: RetryDeps['random'];
  readonly now?: RetryDeps['now'];
  /** Told of every HTTP request (metrics, debug logs); what it throws is ignored. */
  readonly observer?: Observer;
  /** Circuit breaker and pacing per service, asked before every request. @default none */
  readonly guard?: PlatformGuard;
}

const REDACTED = '[redacted]';
/** Shorter strings are not real keys (tests use such); redacting them would garble messages. */
const MIN_REDACTED_KEY_LENGTH = 8;

const validateHttpSettings = (settings: HttpSettings): HttpSettings => {
  const checks: [keyof HttpSettings, number, boolean][] = [
    ['requestTimeoutMs', settings.requestTimeoutMs, settings.requestTimeoutMs > 0],
    [
      'maxAttempts',
      settings.maxAttempts,
      Number.isInteger(settings.maxAttempts) && settings.maxAttempts >= 1,
    ],
    ['baseDelayMs', settings.baseDelayMs, settings.baseDelayMs >= 0],
    ['maxDelayMs', settings.maxDelayMs, settings.maxDelayMs >= 0],
  ];
  for (const [name, value, ok] of checks) {
    if (!ok || !Number.isFinite(value)) {
      throw new Error(`Invalid HTTP setting ${name}: ${value}`);
    }
  }
  return settings;
};

/**
 * The one implementation of "POST with the X-sc headers, classify, retry transient failures,
 * refresh the API key once on 401 / UNAUTHORIZED" that both platform clients share.
 */
export class PlatformCaller {
  readonly #settings: PlatformSettings;
  readonly #apiKey: ApiKeySource;
  readonly #http: HttpSettings;
  readonly #transport: HttpTransport;
  readonly #retryDeps: RetryDeps;
  readonly #baseUrl: string;
  readonly #observer: Observer | undefined;
  readonly #guard: PlatformGuard | undefined;

  constructor(
    settings: PlatformSettings,
    apiKey: ApiKeySource,
    http: Partial<HttpSettings> = {},
    deps: ClientDeps = {},
  ) {
    this.#settings = settings;
    this.#apiKey = apiKey;
    this.#http = validateHttpSettings({ ...DEFAULT_HTTP_SETTINGS, ...http });
    this.#transport = deps.transport ?? postJson;
    this.#retryDeps = {
      sleep: deps.sleep ?? defaultRetryDeps.sleep,
      random: deps.random ?? defaultRetryDeps.random,
      now: deps.now ?? defaultRetryDeps.now,
    };
    this.#baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.#observer = deps.observer;
    this.#guard = deps.guard;
  }

  /** Sends one action's request: the service's path, common body and classification. */
  send(action: AnyAction, message: unknown, options: CallOptions = {}): Promise<Outcome> {
    const service = PLATFORM_SERVICES[action.service];
    return this.post(
      action.service,
      action.endpoint,
      `${service.pathPrefix}/${action.endpoint}`,
      service.body(this.#settings, message, action.requestFields(message)),
      // A realtime read (search) must also carry the records array.
      (result) => service.classify(result, { expectRecords: action.kind === 'read' }),
      options,
    );
  }

  /** A retryable outcome when the action's service is known to be down (no request, no I/O). */
  heldBack(action: AnyAction): Outcome | undefined {
    const held = this.#guard?.heldBack(action.service);
    return held === undefined
      ? undefined
      : { ...held, message: `${action.endpoint}: ${held.message}` };
  }

  /**
   * Starts what the action's first request will wait for, the API key and the breaker's shared
   * state, without waiting: an invocation calls this first, so both reads overlap its other
   * work (parsing, the ledger's claim). Both are cached, so a warm invocation starts nothing.
   * A failed read is left to the request that needs the answer: it reads again and reports it.
   */
  prefetch(action: AnyAction): void {
    this.#apiKey.getKey().catch(() => undefined);
    this.#guard?.prefetch(action.service);
  }

  /** The deployment's campaign region: where a record is when its message names none. */
  get campaignRegion(): string {
    return this.#settings.campaignRegion;
  }

  /** Attempts per call for transient failures (the HTTP settings). */
  get maxAttempts(): number {
    return this.#http.maxAttempts;
  }

  /** True when a request with the full timeout still ends before `deadline` (epoch ms). */
  mayStartRequest(deadline: number = Number.POSITIVE_INFINITY): boolean {
    return this.#retryDeps.now() + this.#http.requestTimeoutMs <= deadline;
  }

  /** `${baseUrl}${path}`; path starts with a slash. */
  url(path: string): string {
    return `${this.#baseUrl}${path}`;
  }

  #headers(apiKey: string): Record<string, string> {
    return {
      'Content-Type': 'application/json',
      'X-sc-platform-code': this.#settings.platformCode,
      'X-sc-company-code': this.#settings.companyCode,
      'X-sc-company-environment': this.#settings.environmentName,
      'X-sc-secrets-region': this.#settings.secretsRegion,
      'X-sc-company-api-key': apiKey,
    };
  }

  /**
   * POSTs `body` as JSON to `path` and returns the classified outcome of the last request.
   * `Outcome.attempts` counts HTTP requests, including the one after a key refresh.
   */
  async post<TBody>(
    service: string,
    endpoint: string,
    path: string,
    body: unknown,
    classify: (result: HttpResult) => Outcome<TBody>,
    options: CallOptions = {},
  ): Promise<Outcome<TBody>> {
    const { now } = this.#retryDeps;
    const url = this.url(path);
    const payload = JSON.stringify(body);
    const usedKeys = new Set<string>();
    let requests = 0;
    let refreshed = false;

    const finish = (outcome: Outcome<TBody>): Outcome<TBody> => {
      // The platform could echo a header back in an error text; keys never leave in a message.
      let message = outcome.message;
      for (const key of usedKeys) {
        if (key.length >= MIN_REDACTED_KEY_LENGTH) message = message.split(key).join(REDACTED);
      }
      return { ...outcome, message: `${endpoint}: ${message}`, attempts: requests };
    };

    let apiKey: string;
    try {
      apiKey = await this.#apiKey.getKey();
    } catch (error) {
      return finish(keyUnavailable(error));
    }

    const send = async (
      key: string,
      timeoutMs: number,
    ): Promise<{ outcome: Outcome<TBody>; result: HttpResult }> => {
      usedKeys.add(key);
      const started = now();
      const result = await this.#transport({
        url,
        headers: this.#headers(key),
        body: payload,
        timeoutMs,
      });
      requests += 1;
      const outcome = classify(result);
      try {
        this.#observer?.attempt?.({
          ...(options.correlationId === undefined ? {} : { correlationId: options.correlationId }),
          endpoint,
          attempt: requests,
          ...(outcome.httpStatus === undefined ? {} : { httpStatus: outcome.httpStatus }),
          code: outcome.code,
          category: outcome.category,
          latencyMs: now() - started,
        });
      } catch {
        // A failing metrics/log hook must not turn a platform outcome into a crash.
      }
      return { outcome, result };
    };

    let doubt = false;
    const attempt = async (budget: AttemptBudget): Promise<AttemptResult<Outcome<TBody>>> => {
      const sent = await sendAuthenticated(budget);
      if (sent.retryable && mayHaveBeenApplied(sent.value)) {
        // The action looks before repeating such a write: hand the failure back now.
        if (options.stopAtDoubt === true) return { ...sent, final: true };
        doubt = true;
        return sent;
      }
      return doubt ? { ...sent, value: { ...sent.value, afterDoubt: true } } : sent;
    };

    const sendAuthenticated = async (
      budget: AttemptBudget,
    ): Promise<AttemptResult<Outcome<TBody>>> => {
      const guarded = await this.#guard?.before(
        service,
        (options.deadline ?? Number.POSITIVE_INFINITY) - this.#http.requestTimeoutMs,
      );
      if (guarded?.kind === 'hold') {
        // No request: the message waits in its queue (retryAfterMs becomes its visibility).
        return { value: guarded.outcome as Outcome<TBody>, retryable: true, final: true };
      }
      let { outcome, result } = await send(apiKey, budget.timeoutMs);
      if (guarded !== undefined) await this.#guard?.after(service, outcome, guarded.permit);
      if (isAuthRejection(outcome)) {
        // One refresh per call: a second rejection means the key is not the problem (or the
        // secret has not rotated yet); SQS redelivery gives it another chance later.
        if (refreshed) return { value: outcome, retryable: true, final: true };
        refreshed = true;
        try {
          apiKey = await this.#apiKey.refreshKey(apiKey);
        } catch (error) {
          return { value: keyUnavailable(error), retryable: true, final: true };
        }
        if (!budget.mayStartRequest()) return { value: outcome, retryable: true, final: true };
        ({ outcome, result } = await send(apiKey, this.#http.requestTimeoutMs));
        if (isAuthRejection(outcome)) return { value: outcome, retryable: true, final: true };
      }
      const retryAfterMs =
        result.kind === 'response' && outcome.category === 'retryable'
          ? parseRetryAfter(result.headers['retry-after'], now())
          : undefined;
      if (retryAfterMs === undefined) {
        return { value: outcome, retryable: outcome.category === 'retryable' };
      }
      return {
        // A wait longer than the in-process backoff cap is not slept in the function: the
        // outcome carries it and the message waits that long in its queue.
        value: { ...outcome, retryAfterMs },
        retryable: outcome.category === 'retryable',
        retryAfterMs,
        ...(retryAfterMs > this.#http.maxDelayMs ? { final: true } : {}),
      };
    };

    const http =
      options.maxAttempts === undefined
        ? this.#http
        : { ...this.#http, maxAttempts: options.maxAttempts };
    const last = await withRetries(attempt, http, this.#retryDeps, options.deadline);
    if (last === undefined) {
      return finish({
        category: 'retryable',
        code: 'DEADLINE_EXCEEDED',
        message: 'no time left before the caller deadline to send the request',
        attempts: 0,
      });
    }
    return finish(last);
  }
}

const isAuthRejection = (outcome: Outcome<unknown>): boolean =>
  AUTH_REJECTION_CODES.includes(outcome.code);

const keyUnavailable = (error: unknown): Outcome<never> => ({
  category: 'retryable',
  code: 'API_KEY_UNAVAILABLE',
  message: `could not read the API key: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
  attempts: 0,
});
