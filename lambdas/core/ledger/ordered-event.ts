import type { OrderedSteps } from '../action';
import type { OrderedEvent } from './entity';
import { eventVersion, payloadHash } from './event-version';

/** The ledger's view of a message: where its entity is kept, and its event. */
export interface Ordered {
  readonly location: string;
  readonly event: OrderedEvent;
}

/** The ledger's view of a write; undefined when it cannot be ordered (no entity key). */
export const orderedEventOf = <M>(
  action: string,
  steps: OrderedSteps<M>,
  message: M,
  occurredAtMs: number,
  campaignRegion: string,
): Ordered | undefined => {
  const location = steps.location(message, campaignRegion);
  if (location === undefined) return undefined;
  const hash = payloadHash(message as Record<string, unknown>);
  const version = eventVersion(occurredAtMs, steps.kind, hash);
  return {
    location,
    event: {
      key: `${action}@${version}`,
      attemptKey: `${action}#${hash.slice(0, 32)}`,
      version,
      kind: steps.kind,
      sets: steps.sets(message),
      ...(steps.destination === undefined
        ? {}
        : { destination: steps.destination(message, campaignRegion) }),
      ...(steps.destinationAddress === undefined
        ? {}
        : { destinationAddress: steps.destinationAddress(message) }),
    },
  };
};
