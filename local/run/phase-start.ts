import { isActionName } from '../../lambdas/actions';
import { declaredCorrelationId } from '../../lambdas/core/entry/envelope';
import { type RouteDecision, routeEvent } from '../in-memory/event-rules';
import { type DeliveredEvent, toDeliveredEvent } from './delivered-event';
import type { InputEvent, Scenario } from './event-input';
import type { Tracked } from './fate-book';
import type { RunObserver } from './pipeline';
import type { RunSettings } from './run-settings';

/** What a run follows of an input event, beside its place in the run and its receives. */
export type Followed = Pick<Tracked, 'phase' | 'input' | 'decision' | 'action' | 'correlationId'>;

export interface StartedPhase {
  /** The phase's events as the bus gets them, in input order. */
  readonly delivered: readonly DeliveredEvent[];
  /** What the run follows of the phase's event `i`, which the bus took as `eventId`. */
  followed(input: InputEvent, i: number, eventId: string): Followed;
}

export interface PhaseStartOptions {
  readonly settings: RunSettings;
  /** The account the events claim. */
  readonly account: string;
  readonly observer: RunObserver;
  readonly phases: number;
}

/**
 * Starts phase `phaseIndex` (0-based), the local run's and the deployed run's alike: its events
 * with the envelope EventBridge adds, where the local routing model sends each, and the
 * observer told.
 */
export const startPhase = (
  { settings, account, observer, phases }: PhaseStartOptions,
  phaseIndex: number,
  phase: Scenario['phases'][number],
): StartedPhase => {
  const deliveryDefaults = { region: settings.campaignRegion, account, now: Date.now };
  const delivered = phase.events.map((input) => toDeliveredEvent(input, deliveryDefaults));
  const decisions = phase.events.map((input) => routeEvent(input, settings.actions));
  observer.phaseStarted?.({
    index: phaseIndex + 1,
    total: phases,
    file: phase.file,
    events: phase.events.length,
    routed: decisions.filter((d) => d.routed).length,
  });
  return {
    delivered,
    followed: (input, i, eventId) => {
      const decision: RouteDecision = decisions[i] ?? { routed: false, reason: 'not routed' };
      return {
        phase: phaseIndex + 1,
        input,
        decision,
        action: decision.routed
          ? decision.action
          : isActionName(input.detailType)
            ? input.detailType
            : undefined,
        correlationId: declaredCorrelationId(input.detail) ?? eventId,
      };
    },
  };
};
