import type { Describe } from '../../core/ledger/entity-kind';
import { NO_EVENT, versionWhen as when } from '../../core/ledger/event-version';
import type { KnownFamily } from './known';
import type { FamilyState, Gone, Place, RecordOp, RecordState } from './model';

/**
 * What a record family's ledger item means to a person (`ops trace`): per campaign, the record's
 * state, queue and zone, and when the rest was set, or why it holds none (where a transfer took
 * it); no data values, names or agent ids.
 */

const what = (op: RecordOp): string => {
  switch (op.kind) {
    case 'upsert':
    case 'status':
    case 'delete':
      return op.campaign;
    case 'transfer':
      return `${op.campaign} → ${op.to}`;
  }
};

/** A record's visible values without personal data: state, queue, zone; the rest by when it was set. */
const recordLine = (record: RecordState): string => {
  const f = record.fields;
  const shown = (name: 'state' | 'skillQueue' | 'timeZone', label: string) =>
    f[name] === undefined ? undefined : `${label} ${f[name]?.value ?? 'default'}`;
  const set = (name: 'data' | 'agent' | 'nextWork', label: string) =>
    f[name] === undefined ? undefined : `${label} set ${when(f[name]?.v ?? NO_EVENT)}`;
  return [
    record.origin.kind === 'ours'
      ? `record made ${when(record.origin.born)}`
      : 'record made outside this integration',
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

const recordGone = (gone: Gone): string => {
  switch (gone.by) {
    case 'nothing':
      return 'none (since before the ledger)';
    case 'transfer':
      return gone.to === null
        ? `moved away, where to not recorded (since ${when(gone.v)})`
        : `moved to ${gone.to} (since ${when(gone.v)})`;
    case 'delete':
      return `none (since ${when(gone.v)})`;
    case 'outside':
      return `none (since ${when(gone.after)})`;
  }
};

const placeLine = (place: Place): string =>
  'record' in place ? recordLine(place.record) : recordGone(place.gone);

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

export const describeFamily: Describe<RecordOp, FamilyState, KnownFamily> = {
  target: what,
  state: familyLines,
};
