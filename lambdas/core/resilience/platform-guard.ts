import { describeDuration } from '../entry/retry-schedule';
import type { Outcome } from '../pipeline/outcome';
import { AdaptiveRate } from './adaptive-rate';
import {
  type BreakerEvents,
  type BreakerStore,
  CircuitBreaker,
  type Permit,
} from './circuit-breaker';
import { type CensusEvents, type CensusStore, InstanceCensus } from './instance-census';

/** The breaker and the pacing of one platform service; any may be left out. */
export interface ServiceGuard {
  readonly breaker?: CircuitBreaker;
  readonly rate?: AdaptiveRate;
  /** Moves the pacing's ceiling with the number of instances calling the service. */
  readonly census?: InstanceCensus;
}

/** The platform service is down: held back without a request. */
export const PLATFORM_UNAVAILABLE = 'PLATFORM_UNAVAILABLE';
/** This instance's request rate has no slot before the deadline: held back without a request. */
export const RATE_LIMITED = 'RATE_LIMITED';

/** Asked before each request to a service; a hold becomes a retryable outcome with its wait. */
export type GuardDecision =
  | { readonly kind: 'call'; readonly permit: Permit }
  | { readonly kind: 'hold'; readonly outcome: Outcome };

const CALL: Permit = { kind: 'call', probe: false };

const unavailable = (service: string, hold: Extract<Permit, { kind: 'hold' }>): Outcome => ({
  category: 'retryable',
  code: PLATFORM_UNAVAILABLE,
  message: `the ${service} service is unavailable (circuit open for ${describeDuration(hold.downForMs)}); held back without a request`,
  attempts: 0,
  retryAfterMs: hold.retryAfterMs,
});

/**
 * The guards of the services one function calls, asked by the platform caller before and told
 * after every request. Holding a message back is an outcome like any other: retryable, with a
 * `retryAfterMs` the SQS handler turns into the message's visibility.
 */
export class PlatformGuard {
  readonly #guards: ReadonlyMap<string, ServiceGuard>;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(
    guards: Readonly<Record<string, ServiceGuard>>,
    sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.#guards = new Map(Object.entries(guards));
    this.#sleep = sleep;
  }

  /** Services whose breaker this instance believes open (the PlatformUnavailable metric). */
  get services(): readonly string[] {
    return [...this.#guards.entries()].filter(([, g]) => g.breaker).map(([service]) => service);
  }

  isUnavailable(service: string): boolean {
    return this.#guards.get(service)?.breaker?.isOpen ?? false;
  }

  /**
   * The outcome of a message that must wait because this instance already knows the service is
   * down (no I/O): asked before a message takes its ledger lease, so an outage costs no
   * DynamoDB writes per held message either.
   */
  heldBack(service: string): Outcome | undefined {
    const hold = this.#guards.get(service)?.breaker?.knownHold();
    return hold?.kind === 'hold' ? unavailable(service, hold) : undefined;
  }

  /** Starts reading the service's shared breaker state, if stale, for the next `before`. */
  prefetch(service: string): void {
    this.#guards.get(service)?.breaker?.prefetch();
  }

  async before(service: string, latestStart: number): Promise<GuardDecision> {
    const guard = this.#guards.get(service);
    if (guard === undefined) return { kind: 'call', permit: CALL };
    const permit = guard.breaker === undefined ? CALL : await guard.breaker.permit();
    if (permit.kind === 'hold') return { kind: 'hold', outcome: unavailable(service, permit) };
    if (guard.rate !== undefined && guard.census !== undefined) {
      guard.rate.setCeiling(guard.census.share());
    }
    const wait = guard.rate?.reserve(latestStart);
    if (wait === undefined && guard.rate !== undefined) {
      return {
        kind: 'hold',
        outcome: {
          category: 'retryable',
          code: RATE_LIMITED,
          message: `the ${service} request rate (${guard.rate.rate.toFixed(2)}/s for this instance) leaves no slot before the deadline`,
          attempts: 0,
          retryAfterMs: Math.ceil(1000 / guard.rate.rate),
        },
      };
    }
    if (wait !== undefined && wait > 0) await this.#sleep(wait);
    return { kind: 'call', permit };
  }

  async after(service: string, outcome: Outcome, permit: Permit): Promise<void> {
    const guard = this.#guards.get(service);
    if (guard === undefined) return;
    if (outcome.httpStatus === 429 || outcome.httpStatus === 503) guard.rate?.throttled();
    else guard.rate?.succeeded();
    await guard.breaker?.record(outcome, permit);
  }
}

/**
 * The guard of a function that calls one service: a breaker when there is a store for its
 * shared state, pacing when there is a ceiling; undefined with neither (tests, the bench).
 * With a census, the pacing's ceiling is the service's ceiling over the instances calling it,
 * never below `ceilingPerSecond` (the share that is safe with all of them running).
 */
export const guardFor = (
  service: string,
  options: {
    readonly store?: BreakerStore | undefined;
    readonly ceilingPerSecond?: number | undefined;
    readonly census?:
      | {
          readonly store: CensusStore;
          readonly serviceCeilingPerSecond: number;
          readonly events?: CensusEvents;
        }
      | undefined;
    readonly now?: () => number;
    readonly events?: BreakerEvents;
  },
): PlatformGuard | undefined => {
  const { store, ceilingPerSecond, census } = options;
  if (store === undefined && ceilingPerSecond === undefined) return undefined;
  return new PlatformGuard({
    [service]: {
      ...(store === undefined
        ? {}
        : {
            breaker: new CircuitBreaker(service, store, {
              ...(options.now ? { now: options.now } : {}),
              ...(options.events ? { events: options.events } : {}),
            }),
          }),
      ...(ceilingPerSecond === undefined ? {} : { rate: new AdaptiveRate({ ceilingPerSecond }) }),
      ...(ceilingPerSecond === undefined || census === undefined
        ? {}
        : {
            census: new InstanceCensus(
              service,
              census.store,
              {
                ceilingPerSecond: census.serviceCeilingPerSecond,
                floorPerSecond: ceilingPerSecond,
              },
              census.events ? { events: census.events } : {},
            ),
          }),
    },
  });
};
