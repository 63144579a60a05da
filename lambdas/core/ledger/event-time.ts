/**
 * When an event happened, which orders it against the entity's other events. The producer's
 * `occurredAt` wins; without it the EventBridge event time, then the time SQS first received the
 * message (docs/decisions.md says why and what that costs).
 */
export interface EventTimeSources {
  /** `occurredAt` of the message (RFC 3339, already validated). */
  readonly occurredAt?: string;
  /** `time` of the EventBridge event that carried the message. */
  readonly eventBridgeTime?: string;
  /** SQS `SentTimestamp` attribute (epoch ms as a string). */
  readonly sqsSentTimestamp?: string;
}

export type EventTimeSource = 'occurredAt' | 'eventbridge-time' | 'sqs-sent' | 'arrival';

export const eventTime = (
  sources: EventTimeSources,
  now: number,
): { readonly ms: number; readonly source: EventTimeSource } => {
  const parsed = (text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
    return Number.isFinite(ms) ? ms : undefined;
  };
  const occurred = parsed(sources.occurredAt);
  if (occurred !== undefined) return { ms: occurred, source: 'occurredAt' };
  const bus = parsed(sources.eventBridgeTime);
  if (bus !== undefined) return { ms: bus, source: 'eventbridge-time' };
  const sent = parsed(sources.sqsSentTimestamp);
  if (sent !== undefined) return { ms: sent, source: 'sqs-sent' };
  return { ms: now, source: 'arrival' };
};
