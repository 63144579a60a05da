/**
 * What `ops trace` shows of an entity's ledger item: its events (with what each message got),
 * the desired state their replay gives, and the platform state the ledger knows, with its doubts.
 * Times and states only: no data values, names or agent ids.
 */
import type { AnyEntityKind, StoredEvent } from '../lambdas/core/ledger/entity-kind';
import { versionTime } from '../lambdas/core/ledger/event-version';
import { LedgerDocError, parseLedgerDoc } from '../lambdas/core/ledger/ledger-doc';
import type { KnownFamily } from '../lambdas/entities/record-family/known';
import type {
  FamilyState,
  Place,
  RecordOp,
  RecordState,
} from '../lambdas/entities/record-family/model';
import { isUnsureUser, type KnownUser, type SureUserPlace } from '../lambdas/entities/user/known';
import type { UserGone, UserOp, UserState } from '../lambdas/entities/user/model';
import { counted } from './counted';

const when = (v: string): string =>
  v === '' ? 'before the ledger' : new Date(versionTime(v)).toISOString();

const what = (op: RecordOp | UserOp): string => {
  switch (op.kind) {
    case 'upsert':
    case 'status':
      return op.campaign;
    // A user's delete names no campaign.
    case 'delete':
      return 'campaign' in op ? op.campaign : '';
    case 'transfer':
      return `${op.campaign} → ${op.to}`;
    default:
      return '';
  }
};

const eventLine = (event: StoredEvent<RecordOp | UserOp>): string => {
  const got =
    event.outcome === undefined
      ? 'pending (its message is retried)'
      : `${event.outcome}${event.settled === true ? '' : ' (a redrive tries it again)'}`;
  const repeats = event.repeats ? `, then ${counted(event.repeats, 'duplicate')} skipped` : '';
  // A user's events name no campaign: no empty column for them.
  const where = what(event.op);
  const column = where === '' ? '' : `${where.padEnd(24)} `;
  // Items written before sources were kept show none.
  const source = event.source === undefined ? '' : ` [from ${event.source}]`;
  return `    ${when(event.v)}  ${event.action.padEnd(30)} ${column}${got}${repeats}${source}`;
};

/** A record's visible values without personal data: state, queue, zone; the rest by when it was set. */
const recordLine = (record: RecordState): string => {
  const f = record.fields;
  const shown = (name: 'state' | 'skillQueue' | 'timeZone', label: string) =>
    f[name] === undefined ? undefined : `${label} ${f[name]?.value ?? 'default'}`;
  const set = (name: 'data' | 'agent' | 'nextWork', label: string) =>
    f[name] === undefined ? undefined : `${label} set ${when(f[name]?.v ?? '')}`;
  return [
    `record made ${when(record.born)}`,
    shown('state', 'state'),
    shown('skillQueue', 'queue'),
    shown('timeZone', 'zone'),
    set('data', 'data'),
    set('agent', 'agent'),
    set('nextWork', 'next work'),
  ]
    .filter((part) => part !== undefined)
    .join(', ');
};

const placeLine = (place: Place): string =>
  'record' in place ? recordLine(place.record) : `none (since ${when(place.gone)})`;

const familyLines = (desired: FamilyState, known: KnownFamily): string[] => {
  const lines = ['  desired (the events replayed in order)'];
  for (const [campaign, place] of Object.entries(desired).sort()) {
    lines.push(`    ${campaign.padEnd(20)} ${placeLine(place)}`);
  }
  lines.push('  on the platform, as the ledger knows it');
  for (const [campaign, place] of Object.entries(known.places).sort()) {
    const line =
      'unsure' in place
        ? `in doubt: a call got no answer (the next message reads it first)`
        : placeLine(place);
    lines.push(`    ${campaign.padEnd(20)} ${line}`);
  }
  return lines;
};

const userGone = (gone: UserGone): string => {
  switch (gone.by) {
    case 'nothing':
      return 'no (since before the ledger)';
    case 'delete':
      return `no (since ${when(gone.v)})`;
    case 'outside':
      return `no (removed outside this integration, after ${when(gone.after)})`;
  }
};

const userPlace = (place: SureUserPlace | undefined): string => {
  if (place === undefined) return 'unknown';
  if ('gone' in place) return userGone(place.gone);
  switch (place.user.origin) {
    case 'outside':
      return 'yes, someone else’s (there before this integration asked for it)';
    case 'ours':
      return `yes, created by this integration ${when(place.user.born)}`;
    case 'ours-unversioned':
      return 'yes, created by this integration before the ledger kept versions';
  }
};

const userLines = (desired: UserState, known: KnownUser): string[] => [
  `  desired            ${userPlace(desired.place)}`,
  `  on the platform    ${
    isUnsureUser(known.place)
      ? 'in doubt: a call got no answer (the next message reads it first)'
      : userPlace(known.place)
  }`,
];

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
  for (const event of doc.events) lines.push(eventLine(event as StoredEvent<RecordOp | UserOp>));
  lines.push(
    ...(kind.name === 'user'
      ? userLines(desired as UserState, doc.known as KnownUser)
      : familyLines(desired as FamilyState, doc.known as KnownFamily)),
  );
  return lines;
};
