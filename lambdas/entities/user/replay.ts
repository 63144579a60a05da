import type { Effect, Replayed } from '../../core/ledger/entity-kind';
import type { UserEvent, UserState } from './model';
import { operationOf } from './operations';

/** The user after its events, applied once each in version order to `start` (each by its operation). Pure. */
export const replayUser = (start: UserState, events: readonly UserEvent[]): Replayed<UserState> => {
  let state = start;
  const effects = new Map<string, Effect>();
  for (const event of events) {
    const next = operationOf(event.op.kind).apply(state, event.v, event.op);
    state = next.state;
    effects.set(event.key, next.effect);
  }
  return { state, effects };
};
