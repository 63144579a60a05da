import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { type EntityAddress, entityKeyOf } from './ledger/entity-key';
import { eventTime } from './ledger/event-time';

/**
 * Two messages of one entity in one batch must never be in flight at once (the ledger would
 * answer the second ENTITY_BUSY and send it round SQS again): they run one after the other, in
 * the order their events happened. The key is read from the raw body, before validation, so a
 * body that does not parse just runs on its own.
 */

interface Addressed extends EntityAddress {
  readonly occurredAt?: unknown;
}

const messageOf = (body: string): Addressed | undefined => {
  try {
    const decoded = JSON.parse(body) as Record<string, unknown> | null;
    if (typeof decoded !== 'object' || decoded === null) return undefined;
    const inner = 'detail-type' in decoded ? decoded.detail : decoded;
    return typeof inner === 'object' && inner !== null ? (inner as Addressed) : undefined;
  } catch {
    return undefined;
  }
};

/** The ledger key of the entity a body names (the one the ledger uses), from the raw body. */
export const entityOf = (body: string, campaignRegion: string): string | undefined => {
  const message = messageOf(body);
  return message === undefined ? undefined : entityKeyOf(message, campaignRegion);
};

/** When the record's event happened, with the fallbacks the ledger uses (see event-time.ts). */
const timeOf = (record: SQSRecord): number => {
  const message = messageOf(record.body);
  return eventTime(
    {
      ...(typeof message?.occurredAt === 'string' ? { occurredAt: message.occurredAt } : {}),
      ...(record.attributes.SentTimestamp === undefined
        ? {}
        : { sqsSentTimestamp: record.attributes.SentTimestamp }),
    },
    0,
  ).ms;
};

/** The batch with each entity's records in `occurredAt` order, in the places they held. */
export const inEventOrder = (event: SQSEvent, campaignRegion: string): SQSEvent => {
  const byEntity = new Map<string, SQSEvent['Records']>();
  for (const record of event.Records) {
    const key = entityOf(record.body, campaignRegion);
    if (key !== undefined) byEntity.set(key, [...(byEntity.get(key) ?? []), record]);
  }
  for (const records of byEntity.values()) {
    records.sort((a, b) => timeOf(a) - timeOf(b));
  }
  return {
    ...event,
    Records: event.Records.map((record) => {
      const key = entityOf(record.body, campaignRegion);
      return (key === undefined ? undefined : byEntity.get(key)?.shift()) ?? record;
    }),
  };
};

/** Runs tasks of one key one after another, in the order they were handed in. */
export const oneEntityAtATime = () => {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string | undefined, task: () => Promise<T>): Promise<T> => {
    if (key === undefined) return task();
    const previous = tails.get(key);
    // The first of a key starts now, as a record without a key would: batch order is kept.
    const next = previous === undefined ? task() : previous.then(task, task);
    tails.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  };
};
