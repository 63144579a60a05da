import type { FieldValue, OrderedEvent } from '../../../lambdas/core/ledger/entity';
import { type EventKind, eventVersion } from '../../../lambdas/core/ledger/event-version';

/**
 * An event as the ledger names it: its key from its kind and version (occurrence time, kind,
 * payload hash), its attempt key from its kind and `hash`.
 */
export const orderedEvent = (
  kind: EventKind,
  occurredAtMs: number,
  hash: string,
  sets: Readonly<Record<string, FieldValue>>,
  versionHash = hash,
): OrderedEvent => {
  const version = eventVersion(occurredAtMs, kind, versionHash);
  return { key: `${kind}@${version}`, attemptKey: `${kind}#${hash}`, version, kind, sets };
};
