/**
 * What `ops trace` shows of an entity's ledger item: its events (with what each message got),
 * the desired state their replay gives, and the platform state the ledger knows, with its doubts.
 * Times and states only: no data values, names or agent ids. What an item means for its kind
 * (an event's target, the states) is the kind's own `describe`; the desired state is its own
 * `start` and `replay`, the code the ledger and reconciliation ask what the entity wants.
 */
import type { AnyEntityKind, StoredEvent } from '../lambdas/core/ledger/entity-kind';
import { versionWhen as when } from '../lambdas/core/ledger/event-version';
import { LedgerDocError, parseLedgerDoc } from '../lambdas/core/ledger/ledger-doc';
import { counted } from './counted';

const eventLine = (kind: AnyEntityKind, event: StoredEvent<unknown>): string => {
  const got =
    event.outcome === undefined
      ? 'pending (its message is retried)'
      : `${event.outcome}${event.settled === true ? '' : ' (a redrive tries it again)'}`;
  const repeats = event.repeats ? `, then ${counted(event.repeats, 'duplicate')} skipped` : '';
  // An event of the entity itself (a user's) names no campaign: no empty column for it.
  const where: string | undefined = kind.describe.target(event.op);
  const column = where === undefined ? '' : `${where.padEnd(24)} `;
  // Items written before sources were kept show none.
  const source = event.source === undefined ? '' : ` [from ${event.source}]`;
  return `    ${when(event.v)}  ${event.action.padEnd(30)} ${column}${got}${repeats}${source}`;
};

/** The lines `ops trace` prints for a ledger item of `kind` (or its absence). */
export const describeLedgerItem = (kind: AnyEntityKind, raw: unknown): string[] => {
  if (raw === undefined) {
    return [
      '  no ledger entry: no message of this integration has touched it (or its entry expired)',
    ];
  }
  let doc: ReturnType<typeof parseLedgerDoc>;
  try {
    doc = parseLedgerDoc(raw, kind.name, kind.parts);
  } catch (error) {
    // The item the LEDGER_ITEM_INVALID dead letters point at: say what is wrong with it.
    if (!(error instanceof LedgerDocError)) throw error;
    return [
      `  an entry that does not parse (${error.message}): every message of this entity is dead-lettered as LEDGER_ITEM_INVALID`,
      '  delete the item under the ledger key above (the next message then reads the platform first) or repair it, then redrive',
    ];
  }
  if (doc === undefined) {
    return [
      '  an entry of an older ledger version: its next message reads the platform before it acts',
    ];
  }
  const start = kind.start(doc.known, doc.snapshot?.state);
  const desired = kind.replay(start, doc.events).state;
  const lines = ['  events, by occurredAt, oldest first:'];
  if (doc.snapshot !== undefined)
    lines.push(`    (events up to ${when(doc.snapshot.v)} folded into a snapshot)`);
  for (const event of doc.events) lines.push(eventLine(kind, event));
  lines.push(...kind.describe.state(desired, doc.known));
  return lines;
};
