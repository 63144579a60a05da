import type { BreakerState, BreakerStore } from './circuit-breaker';

/** Breaker state in memory: the local run, tests, and one process's functions sharing it. */
export class InMemoryBreakerStore implements BreakerStore {
  readonly #states = new Map<string, BreakerState>();

  async read(service: string): Promise<BreakerState | undefined> {
    return this.#states.get(service);
  }

  async open(service: string, openUntil: number, now: number): Promise<void> {
    // A re-opening ends any probe lease, as the DynamoDB store does.
    const openedAt = this.#states.get(service)?.openedAt ?? now;
    this.#states.set(service, { openUntil, openedAt });
  }

  async claimProbe(service: string, now: number, leaseUntil: number): Promise<boolean> {
    const state = this.#states.get(service);
    if (state === undefined) return true;
    if (now < state.openUntil || (state.probeUntil !== undefined && now < state.probeUntil)) {
      return false;
    }
    this.#states.set(service, { ...state, probeUntil: leaseUntil });
    return true;
  }

  async close(service: string): Promise<void> {
    this.#states.delete(service);
  }
}
