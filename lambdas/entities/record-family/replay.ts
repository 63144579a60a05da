import type { Effect, Replayed } from '../../core/ledger/entity-kind';
import type { FamilyState, RecordEvent } from './model';
import { operationOf } from './operations';

/**
 * The family after its events, applied once each in version order (ties are ordered by the
 * version itself) to `start`: what was on the platform before the ledger's first write there.
 * Each event as the platform applies its request (its operation's rule, `operations/`). Pure.
 */
export const replayFamily = (
  start: FamilyState,
  events: readonly RecordEvent[],
): Replayed<FamilyState> => {
  const places = new Map(Object.entries(start));
  const effects = new Map<string, Effect>();
  for (const event of events) {
    effects.set(event.key, operationOf(event.op.kind).apply(places, event.v, event.op));
  }
  return { state: Object.fromEntries(places), effects };
};
