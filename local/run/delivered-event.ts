import { type EventBridgeEvent, eventBridgeEvent, eventBridgeTime } from '../../testkit';
import type { InputEvent } from './event-input';

/** The event as EventBridge hands it to an SQS target: the SQS body is this object as JSON. */
export type DeliveredEvent = EventBridgeEvent<Readonly<Record<string, unknown>>>;

export interface DeliveryDefaults {
  readonly region: string;
  readonly account: string;
  readonly now: () => number;
}

/** Fills in the envelope EventBridge adds (`id`, `time`, …), keeping what the file gave. */
export const toDeliveredEvent = (input: InputEvent, defaults: DeliveryDefaults): DeliveredEvent => {
  const { envelope } = input;
  const given = (key: string): string | undefined => {
    const value = envelope[key];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const event = eventBridgeEvent(input.detailType, input.detail, {
    id: given('id'),
    source: input.source,
    account: given('account') ?? defaults.account,
    region: given('region') ?? defaults.region,
    time: given('time') ?? eventBridgeTime(defaults.now()),
    resources: Array.isArray(envelope.resources)
      ? envelope.resources.filter((r): r is string => typeof r === 'string')
      : [],
  });
  return { ...event, version: given('version') ?? event.version };
};
