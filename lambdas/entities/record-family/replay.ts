import type { Effect, Replayed } from '../../core/ledger/entity-kind';
import type { FamilyState, RecordEvent } from './model';
import { operationOf } from './operations';

/**
 * The family after its events, applied once each in version order (ties are ordered by the
 * version itself) to `start`: what was on the platform before the ledger's first write there.
 * Each event as the platform applies its request (its operation's rule, `operations/`). Pure.
 * Every message replays all of its family's events, so a rule here holds whatever order, copies
 * or redrives they came in: test/reliability/convergence.test.ts and
 * ordering/one-family.property.test.ts hold the ledger to the oracle (`local/convergence/model.ts`)
 * over shuffled, doubled and faulty delivery.
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
