import { randomUUID } from 'node:crypto';

/**
 * Where the instances of a deployment's functions check in per platform service. One shared
 * record per service (an item of the ledger table): each instance writes its own time and gets
 * everyone's back in the same request.
 */
export interface CensusStore {
  /**
   * Records `instance` as calling `service` at `now`, forgets the `forget` instances (gone
   * quiet) unless one of them checked in since it was seen (then all stay, until the next
   * check-in), and returns every instance's last check-in, epoch ms.
   */
  checkIn(visit: CheckIn): Promise<ReadonlyMap<string, number>>;
}

/** One check-in, by name: service and instance are both strings, easily swapped in place. */
export interface CheckIn {
  readonly service: string;
  readonly instance: string;
  /** Epoch ms. */
  readonly now: number;
  /** Instances seen quiet, with the check-in they were seen at (epoch ms). */
  readonly forget: ReadonlyMap<string, number>;
}

export interface InstanceCensusSettings {
  /** The service's ceiling for the whole deployment, requests per second. */
  readonly ceilingPerSecond: number;
  /**
   * The share that is safe with every instance of every action of the service running: used
   * until the first check-in answers and whenever the store fails. Never goes lower.
   */
  readonly floorPerSecond: number;
  /** How often a busy instance checks in while the count holds steady. @default 5000 */
  readonly checkInMs?: number;
  /** How often while the count is changing (instances starting or going quiet). @default 1000 */
  readonly changingCheckInMs?: number;
  /** An instance not seen for this long no longer counts (it went idle or away). @default 15000 */
  readonly activeMs?: number;
}

export interface CensusEvents {
  /** A check-in failed: the instance paces at the floor until the next one answers. */
  failed?(service: string, error: unknown): void;
}

/** Instances forgotten in one check-in at most: keeps the update expression small. */
const MAX_FORGET = 25;

/**
 * Gives one instance its share of a service's request ceiling from how many instances are
 * calling that service now: the whole ceiling when one function drains a backlog alone, an
 * even part when many run. The count lags by one check-in, so a scale-out can overshoot the
 * ceiling for a few seconds; the platform's 429s then halve the pacing (AIMD).
 */
export class InstanceCensus {
  readonly #service: string;
  readonly #store: CensusStore;
  readonly #ceiling: number;
  readonly #floor: number;
  readonly #checkInMs: number;
  readonly #changingCheckInMs: number;
  readonly #activeMs: number;
  readonly #now: () => number;
  readonly #events: CensusEvents;
  readonly #id: string;
  #active: number | undefined;
  #dueAt = Number.NEGATIVE_INFINITY;
  #pending: Promise<void> | undefined;
  #forget: ReadonlyMap<string, number> = new Map();

  constructor(
    service: string,
    store: CensusStore,
    settings: InstanceCensusSettings,
    options: {
      readonly now?: () => number;
      readonly events?: CensusEvents;
      readonly id?: string;
    } = {},
  ) {
    if (!(settings.floorPerSecond > 0) || settings.floorPerSecond > settings.ceilingPerSecond) {
      throw new RangeError(
        `floorPerSecond must be in (0, ceilingPerSecond], got ${settings.floorPerSecond}`,
      );
    }
    this.#service = service;
    this.#store = store;
    this.#ceiling = settings.ceilingPerSecond;
    this.#floor = settings.floorPerSecond;
    this.#checkInMs = settings.checkInMs ?? 5_000;
    this.#changingCheckInMs = settings.changingCheckInMs ?? 1_000;
    this.#activeMs = settings.activeMs ?? 15_000;
    this.#now = options.now ?? Date.now;
    this.#events = options.events ?? {};
    this.#id = options.id ?? randomUUID();
  }

  /**
   * This instance's ceiling now, in requests per second. Starts a check-in when one is due but
   * never waits for it: a request is not held up by the count.
   */
  share(): number {
    const now = this.#now();
    if (this.#pending === undefined && now >= this.#dueAt) {
      // Soon again, unless this check-in finds the same count as the last one.
      this.#dueAt = now + this.#changingCheckInMs;
      this.#pending = this.#checkIn(now).finally(() => {
        this.#pending = undefined;
      });
    }
    if (this.#active === undefined) return this.#floor;
    return Math.min(this.#ceiling, Math.max(this.#floor, this.#ceiling / this.#active));
  }

  /** Resolves when the check-in under way (if any) has answered. */
  settled(): Promise<void> {
    return this.#pending ?? Promise.resolve();
  }

  async #checkIn(now: number): Promise<void> {
    try {
      const seen = await this.#store.checkIn({
        service: this.#service,
        instance: this.#id,
        now,
        forget: this.#forget,
      });
      let active = 0;
      const quiet = new Map<string, number>();
      for (const [instance, at] of seen) {
        if (instance === this.#id || now - at < this.#activeMs) active += 1;
        else if (quiet.size < MAX_FORGET) quiet.set(instance, at);
      }
      if (this.#active === Math.max(1, active)) {
        this.#dueAt = now + this.#checkInMs;
      }
      this.#active = Math.max(1, active);
      this.#forget = quiet;
    } catch (error) {
      // Not the record's failure: pace at the safe floor and say so.
      this.#active = undefined;
      this.#events.failed?.(this.#service, error);
    }
  }
}
