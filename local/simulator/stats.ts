import { FAULT_KINDS, type FaultKind } from './faults';

/** Counts for one spec endpoint (keyed by its path suffix, e.g. `addOrUpdateCampaignRecord`). */
export interface EndpointStats {
  readonly requests: number;
  /** HTTP status → count, e.g. `{ "200": 5, "401": 1 }`. Resets, hangs and lost responses have none. */
  readonly httpStatus: Readonly<Record<string, number>>;
  /** `previewResultStatus` / `result` of HTTP 200 JSON answers → count. */
  readonly result: Readonly<Record<string, number>>;
  readonly faults: Readonly<Record<FaultKind, number>>;
}

/** Requests to paths outside both services and to the admin endpoint are not counted. */
export interface StatsSnapshot {
  readonly requests: number;
  readonly unauthorized: number;
  /** Requests that got the configured latency added. */
  readonly delayed: number;
  readonly faults: Readonly<Record<FaultKind, number>>;
  readonly endpoints: Readonly<Record<string, EndpointStats>>;
}

interface MutableEndpointStats {
  requests: number;
  httpStatus: Record<string, number>;
  result: Record<string, number>;
  faults: Record<FaultKind, number>;
}

const zeroFaults = (): Record<FaultKind, number> =>
  Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;

const bump = (counts: Record<string, number>, key: string): void => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** Live counters of spec requests; `reset()` clears them in place. */
export class SimulatorStats {
  private endpointCounts = new Map<string, MutableEndpointStats>();
  private faultCounts = zeroFaults();
  private requestCount = 0;
  private unauthorizedCount = 0;
  private delayedCount = 0;

  get requests(): number {
    return this.requestCount;
  }

  get unauthorized(): number {
    return this.unauthorizedCount;
  }

  get delayed(): number {
    return this.delayedCount;
  }

  get faults(): Readonly<Record<FaultKind, number>> {
    return { ...this.faultCounts };
  }

  /** Counts for one endpoint (zeros when it saw no request). */
  endpoint(suffix: string): EndpointStats {
    const found = this.endpointCounts.get(suffix);
    return found ? copy(found) : { requests: 0, httpStatus: {}, result: {}, faults: zeroFaults() };
  }

  /** Shorthand: how many answers of `endpoint` carried this HTTP status or result value. */
  count(suffix: string, statusOrResult: number | string): number {
    const stats = this.endpoint(suffix);
    return typeof statusOrResult === 'number'
      ? (stats.httpStatus[String(statusOrResult)] ?? 0)
      : (stats.result[statusOrResult] ?? 0);
  }

  snapshot(): StatsSnapshot {
    return {
      requests: this.requestCount,
      unauthorized: this.unauthorizedCount,
      delayed: this.delayedCount,
      faults: this.faults,
      endpoints: Object.fromEntries(
        [...this.endpointCounts.entries()].map(([key, value]) => [key, copy(value)]),
      ),
    };
  }

  reset(): void {
    this.endpointCounts = new Map();
    this.faultCounts = zeroFaults();
    this.requestCount = 0;
    this.unauthorizedCount = 0;
    this.delayedCount = 0;
  }

  // ---- used by the server ---------------------------------------------------------------

  countRequest(suffix: string): void {
    this.requestCount += 1;
    this.mutable(suffix).requests += 1;
  }

  countDelay(): void {
    this.delayedCount += 1;
  }

  countFault(suffix: string, kind: FaultKind): void {
    this.faultCounts[kind] += 1;
    this.mutable(suffix).faults[kind] += 1;
  }

  countAnswer(suffix: string, httpStatus: number, result?: string): void {
    const stats = this.mutable(suffix);
    bump(stats.httpStatus, String(httpStatus));
    if (result !== undefined) bump(stats.result, result);
    if (httpStatus === 401) this.unauthorizedCount += 1;
  }

  private mutable(suffix: string): MutableEndpointStats {
    let stats = this.endpointCounts.get(suffix);
    if (!stats) {
      stats = { requests: 0, httpStatus: {}, result: {}, faults: zeroFaults() };
      this.endpointCounts.set(suffix, stats);
    }
    return stats;
  }
}

const copy = (stats: MutableEndpointStats): EndpointStats => ({
  requests: stats.requests,
  httpStatus: { ...stats.httpStatus },
  result: { ...stats.result },
  faults: { ...stats.faults },
});
