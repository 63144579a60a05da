import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { type EntityAddress, entityKeyOf } from '../ledger/entity-key';
import { eventTime } from '../ledger/event-time';
import { isEventBridgeEvent } from './envelope';

/**
 * Two messages of one entity in one batch must never be in flight at once (the ledger would
 * answer the second ENTITY_BUSY and send it round SQS again): they run one after the other, in
 * the order their events happened. The key is read from the raw body, before validation, so a
 * body that does not parse just runs on its own.
 */

interface Addressed extends EntityAddress {
  readonly occurredAt?: unknown;
}

/** What the batch reads of one record's raw body, once: the pipeline and the ordering share it. */
export interface RecordReading {
  /** The body decoded; undefined when it is not JSON (the pipeline refuses it then). */
  readonly decoded: unknown;
  /** The ledger key of the entity it names (the one the ledger uses). */
  readonly entity: string | undefined;
  /** When its event happened, with the fallbacks the ledger uses (see event-time.ts). */
  readonly time: number;
}

const decode = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

const messageOf = (decoded: unknown): Addressed | undefined => {
  if (typeof decoded !== 'object' || decoded === null) return undefined;
  // The pipeline's own test of an envelope, so both read one body the same way.
  const inner = isEventBridgeEvent(decoded) ? decoded.detail : decoded;
  return typeof inner === 'object' && inner !== null ? (inner as Addressed) : undefined;
};

/** Reads one record's body: parsed here once, whatever else needs it. */
const readRecord = (record: SQSRecord, campaignRegion: string): RecordReading => {
  const decoded = decode(record.body);
  const message = messageOf(decoded);
  const time = eventTime(
    {
      ...(typeof message?.occurredAt === 'string' ? { occurredAt: message.occurredAt } : {}),
      ...(record.attributes.SentTimestamp === undefined
        ? {}
        : { sqsSentTimestamp: record.attributes.SentTimestamp }),
    },
    0,
  ).ms;
  return {
    decoded,
    entity: message === undefined ? undefined : entityKeyOf(message, campaignRegion),
    time,
  };
};

/**
 * The batch with each entity's records in `occurredAt` order, in the places they held, and what
 * was read of each record's body (keyed by the record).
 */
export const inEventOrder = (
  event: SQSEvent,
  campaignRegion: string,
): { readonly event: SQSEvent; readonly readings: ReadonlyMap<SQSRecord, RecordReading> } => {
  const readings = new Map(event.Records.map((r) => [r, readRecord(r, campaignRegion)] as const));
  const timeOf = (record: SQSRecord) => readings.get(record)?.time ?? 0;
  const byEntity = new Map<string, SQSRecord[]>();
  for (const [record, { entity }] of readings) {
    if (entity !== undefined) byEntity.set(entity, [...(byEntity.get(entity) ?? []), record]);
  }
  for (const records of byEntity.values()) {
    records.sort((a, b) => timeOf(a) - timeOf(b));
  }
  return {
    event: {
      ...event,
      Records: event.Records.map((record) => {
        const entity = readings.get(record)?.entity;
        return (entity === undefined ? undefined : byEntity.get(entity)?.shift()) ?? record;
      }),
    },
    readings,
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
