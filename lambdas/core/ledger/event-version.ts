import { createHash } from 'node:crypto';

/**
 * The order of an entity's events. A version is a string that sorts as the events happened:
 * `occurredAt` (ms, zero-padded), then a rank that breaks ties between different kinds of event
 * at the same millisecond, then a hash of the payload that breaks the rest deterministically.
 * Strings keep the comparison the same in code, in DynamoDB and in the test model.
 */
export type Version = string;

/**
 * Same-millisecond ties: an add comes before a change, a change before a transfer, a transfer
 * before a delete. The names are the actions' words; a version holds only the number.
 */
export const EVENT_RANKS = { add: 1, change: 2, transfer: 3, delete: 4 } as const;
export type EventRank = keyof typeof EVENT_RANKS;

const TIME_DIGITS = 15;

/**
 * The version of a value that no event set (found on the platform, made outside the
 * integration): it sorts before every event's version, so any event's value is newer.
 */
export const NO_EVENT: Version = '';

export const eventVersion = (occurredAtMs: number, rank: EventRank, payloadHash: string): Version =>
  `${String(Math.trunc(occurredAtMs)).padStart(TIME_DIGITS, '0')}.${EVENT_RANKS[rank]}.${payloadHash.slice(0, 16)}`;

/**
 * The version of a change made on the platform outside any event (an agent working the record
 * at `ms`): it sorts with the events by time, after every event of that millisecond.
 */
export const platformVersion = (ms: number): Version =>
  `${String(Math.trunc(ms)).padStart(TIME_DIGITS, '0')}.9.platform`;

export const isPlatformVersion = (version: Version): boolean => version.endsWith('.9.platform');

/** The rank of the event a version was made for by `eventVersion` (undefined for any other version). */
export const eventRankOf = (version: Version): EventRank | undefined => {
  const rank = Number(version.slice(TIME_DIGITS + 1, TIME_DIGITS + 2));
  return (Object.keys(EVENT_RANKS) as EventRank[]).find((kind) => EVENT_RANKS[kind] === rank);
};

/** The `occurredAt` part of a version, in epoch ms. */
export const versionTime = (version: Version): number => Number(version.slice(0, TIME_DIGITS));

/** A version as a person reads it: its time, or "before the ledger" for what was there first (''). */
export const versionWhen = (v: Version): string =>
  v === NO_EVENT ? 'before the ledger' : new Date(versionTime(v)).toISOString();

/** Stable JSON: object keys sorted, so the same payload always hashes the same. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};

/** A version's time and rank, without its hash. */
const moment = (v: Version): string => v.split('.', 2).join('.');

/**
 * Whether two events are one: the same time and rank, and the same op. Their versions then match,
 * unless the op's words changed between the two (a user's `join` became `add`): the hash of the
 * one stored before differs, so the ledger recognises a copy by this and not by its version.
 */
export const sameEvent = (
  a: { readonly v: Version; readonly op: unknown },
  b: { readonly v: Version; readonly op: unknown },
): boolean => moment(a.v) === moment(b.v) && canonical(a.op) === canonical(b.op);

/**
 * Hash of what a message asks the platform to do: the correlation id and the time are left out,
 * so two copies of one event hash the same whoever re-sent them.
 */
export const payloadHash = (message: Readonly<Record<string, unknown>>): string => {
  const { correlationId: _c, occurredAt: _o, ...payload } = message;
  return createHash('sha256').update(canonical(payload)).digest('hex');
};

/**
 * The version of a message's event: its time, its kind's rank, and a hash of what it does to
 * its entity (the ordering's `op`, computed once by the caller, which sends the same op), so
 * that two messages naming one record differently (by clientId, or by previewRecordId) are one
 * event, and a tie between them is broken the same way wherever the order is computed.
 */
export const versionOf = (rank: EventRank, op: unknown, occurredAtMs: number): Version =>
  eventVersion(occurredAtMs, rank, payloadHash({ op }));
