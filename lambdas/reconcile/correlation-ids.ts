/**
 * What every repair message carries besides its action's fields. Its correlation id: the
 * snapshot and the export row it came from, or, for an entity beyond the export's rows, the
 * snapshot and a short hash of the entity, so a trace finds the plan that sent it. Its time: the
 * export's, which orders it against live events (the plan file refuses any other).
 */
import { createHash } from 'node:crypto';
import type { Snapshot } from './snapshot';

const sha8 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 8);

export const rowCorrelation = (snapshot: Snapshot, line: number): string =>
  `reconcile@${snapshot.id}#${line}`;

/** A repair message's stamp: its correlation id and the export's time. */
export const stamp = (snapshot: Snapshot, correlationId: string) => ({
  correlationId,
  occurredAt: snapshot.manifest.exportedAt,
});

export const entityCorrelation = (snapshot: Snapshot, entity: string): string =>
  `reconcile@${snapshot.id}#x${sha8(entity)}`;
