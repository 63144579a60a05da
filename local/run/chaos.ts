/**
 * `npm start -- --chaos [seed]`: the scenario as real traffic delivers it. Every routed event,
 * some of them twice, in a shuffled order, in one phase; the pipeline then polls all queues at
 * once and the simulator injects faults. Afterwards the platform is held against the model
 * (local/convergence/model.ts): each entity must end as its events, applied once in order, say.
 */

import { routeEvent } from '../in-memory/event-rules';
// The simulator's generator: the same seed gives the same run.
import { seededRandom } from '../simulator/faults';
import type { InputEvent, Scenario } from './event-input';
import type { RunSettings } from './run-settings';

/** Share of events delivered a second time (at-least-once delivery). */
export const CHAOS_DUPLICATE_RATE = 0.35;

/** The routed events of `scenario`, some doubled, shuffled by `seed`, as one phase. */
export const chaosScenario = (
  scenario: Scenario,
  settings: RunSettings,
  seed: number,
): Scenario => {
  const random = seededRandom(seed);
  const routed = scenario.phases
    .flatMap((phase) => phase.events)
    .filter((event) => routeEvent(event, settings.actions).routed);
  // A copy is a second SQS message of the same event: same detail, its own envelope id.
  const copy = ({ envelope, ...event }: InputEvent): InputEvent => {
    const { id: _id, ...rest } = envelope;
    return { ...event, envelope: rest };
  };
  const deliveries = routed.flatMap((event) =>
    random() < CHAOS_DUPLICATE_RATE ? [copy(event), copy(event)] : [copy(event)],
  );
  for (let i = deliveries.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [deliveries[i], deliveries[j]] = [deliveries[j] as InputEvent, deliveries[i] as InputEvent];
  }
  return {
    origin: `${scenario.origin}, shuffled with duplicates (seed ${seed})`,
    phases: [{ file: `chaos seed ${seed}`, events: deliveries }],
    seed: scenario.seed,
    expectations: undefined,
  };
};
