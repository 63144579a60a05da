import type {
  BrakeCountCondition,
  BrakeLimit,
  BrakeRoll,
  BrakeState,
  BrakeStore,
  BrakeWrite,
} from './mass-delete-brake';

/** Brake state in memory: the local run and tests; each write is atomic, as DynamoDB's are. */
export class InMemoryBrakeStore implements BrakeStore {
  readonly #states = new Map<string, BrakeState>();

  async read(action: string): Promise<BrakeState | undefined> {
    return this.#states.get(action);
  }

  async count(action: string, expected: BrakeCountCondition): Promise<BrakeWrite> {
    const state = this.#states.get(action);
    if (
      state === undefined ||
      state.trippedAt !== undefined ||
      state.windowStart !== expected.windowStart ||
      state.previousUsed !== expected.previousUsed ||
      state.used >= expected.maxUsed
    ) {
      return { done: false, state };
    }
    const next = { ...state, used: state.used + 1 };
    this.#states.set(action, next);
    return { done: true, state: next };
  }

  async roll(action: string, from: number | undefined, to: BrakeRoll): Promise<BrakeWrite> {
    const state = this.#states.get(action);
    if (state?.trippedAt !== undefined || state?.windowStart !== from) {
      return { done: false, state };
    }
    const next: BrakeState = { ...state, ...to, used: 1 };
    this.#states.set(action, next);
    return { done: true, state: next };
  }

  async trip(action: string, now: number, brake: BrakeLimit): Promise<BrakeState> {
    const state = this.#states.get(action) ?? { windowStart: 0, used: 0, previousUsed: 0 };
    const next = { ...state, ...brake, trippedAt: state.trippedAt ?? now };
    this.#states.set(action, next);
    return next;
  }

  async rearm(action: string, windowStart: number, now: number): Promise<BrakeState> {
    const { limit, windowMs } = this.#states.get(action) ?? {};
    const next: BrakeState = {
      windowStart,
      used: 0,
      previousUsed: 0,
      rearmedAt: now,
      ...(limit === undefined ? {} : { limit }),
      ...(windowMs === undefined ? {} : { windowMs }),
    };
    this.#states.set(action, next);
    return next;
  }
}
