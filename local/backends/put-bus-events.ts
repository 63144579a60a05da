import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { EventBridgeEvent } from '../../testkit';

/** PutEvents takes at most this many entries a call. */
const PUT_EVENTS_MAX_ENTRIES = 10;

/**
 * PutEvents on `busName`, in chunks the API takes; the ids EventBridge gave the events, in input
 * order. Throws on the first entry EventBridge rejected, naming its detail type and error code.
 */
export const putBusEvents = async (
  client: EventBridgeClient,
  busName: string,
  events: readonly EventBridgeEvent[],
): Promise<string[]> => {
  const ids: string[] = [];
  for (let start = 0; start < events.length; start += PUT_EVENTS_MAX_ENTRIES) {
    const chunk = events.slice(start, start + PUT_EVENTS_MAX_ENTRIES);
    const response = await client.send(
      new PutEventsCommand({
        Entries: chunk.map((event) => ({
          EventBusName: busName,
          Source: event.source,
          DetailType: event['detail-type'],
          Detail: JSON.stringify(event.detail),
        })),
      }),
    );
    chunk.forEach((event, i) => {
      const entry = response.Entries?.[i];
      if (!entry?.EventId) {
        throw new Error(
          `PutEvents rejected the ${event['detail-type']} event: ${entry?.ErrorCode ?? 'no event id'}`,
        );
      }
      ids.push(entry.EventId);
    });
  }
  return ids;
};
