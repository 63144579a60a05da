import { randomUUID } from 'node:crypto';
import { type ActionName, isActionName } from '../../lambdas/actions';
import type { EventBridgeEvent } from '../../testkit';
import type { InputEvent } from './event-input';
import type { ActionRunSettings } from './run-settings';

/** The event as EventBridge hands it to an SQS target: the SQS body is this object as JSON. */
export type DeliveredEvent = EventBridgeEvent & {
  readonly detail: Readonly<Record<string, unknown>>;
};

export type RouteDecision =
  | { readonly routed: true; readonly action: ActionName }
  | { readonly routed: false; readonly reason: string };

/**
 * What the stack's EventBridge rules do: one rule per enabled action matching
 * `detail-type` = the action name and `source` in the action's allowed sources. An event that
 * matches no rule is dropped by EventBridge without a trace, so the runner reports it.
 */
export const routeEvent = (
  event: { readonly source: string; readonly detailType: string },
  actions: Readonly<Record<ActionName, ActionRunSettings>>,
): RouteDecision => {
  const { source, detailType } = event;
  if (!isActionName(detailType)) {
    return { routed: false, reason: `no rule matches detail-type "${detailType}"` };
  }
  const settings = actions[detailType];
  if (!settings.enabled) {
    return { routed: false, reason: `${detailType} is disabled in the config (no rule)` };
  }
  if (!settings.allowedSources.includes(source)) {
    return {
      routed: false,
      reason: `source "${source}" is not allowed for ${detailType} (allowed: ${settings.allowedSources.join(', ')})`,
    };
  }
  return { routed: true, action: detailType };
};

export interface DeliveryDefaults {
  readonly region: string;
  readonly account: string;
  readonly now: () => number;
}

const stringOr = (value: unknown, fallback: () => string): string =>
  typeof value === 'string' && value !== '' ? value : fallback();

/** Fills in the envelope EventBridge adds (`id`, `time`, …), keeping what the file gave. */
export const toDeliveredEvent = (input: InputEvent, defaults: DeliveryDefaults): DeliveredEvent => {
  const { envelope } = input;
  const resources = Array.isArray(envelope.resources)
    ? envelope.resources.filter((r): r is string => typeof r === 'string')
    : [];
  return {
    version: stringOr(envelope.version, () => '0'),
    id: stringOr(envelope.id, randomUUID),
    'detail-type': input.detailType,
    source: input.source,
    account: stringOr(envelope.account, () => defaults.account),
    time: stringOr(envelope.time, () =>
      new Date(defaults.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ),
    region: stringOr(envelope.region, () => defaults.region),
    resources,
    detail: input.detail,
  };
};
