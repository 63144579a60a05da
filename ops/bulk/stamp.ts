/**
 * What a bulk load adds to each message so a resend is recognisably the same event: a
 * correlation id derived from the file and the message's line, and an `occurredAt` (the
 * file's export time) when the message has none. Both depend only on the file's content and
 * the export time kept in the checkpoint, so a rerun stamps a message exactly as before and
 * the entity ledger skips a second copy as a duplicate (same time, same payload).
 */
import path from 'node:path';

export interface LoadStamp {
  /** Identifies the file: its name and a prefix of its content hash. */
  readonly fileId: string;
  /** RFC 3339 UTC with milliseconds. */
  readonly exportedAt: string;
}

const MAX_FILE_NAME = 80;

export const loadStamp = (input: string, contentHash: string, exportedAt: string): LoadStamp => ({
  fileId: `${path.basename(input).slice(0, MAX_FILE_NAME)}@${contentHash.slice(0, 12)}`,
  exportedAt,
});

/** `leads.csv@3f2a9c1b04de#1234`: at most 128 characters, as the contract allows. */
export const derivedCorrelationId = (stamp: LoadStamp, position: number): string =>
  `${stamp.fileId}#${position}`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The message with the stamps it lacks; its own `correlationId` and `occurredAt` (a CSV column
 * or a JSON field) win. A value that is not an object is returned as is, for the schema to reject.
 */
export const stampMessage = (stamp: LoadStamp, position: number, value: unknown): unknown => {
  if (!isRecord(value)) return value;
  return {
    ...value,
    correlationId: value.correlationId ?? derivedCorrelationId(stamp, position),
    occurredAt: value.occurredAt ?? stamp.exportedAt,
  };
};
