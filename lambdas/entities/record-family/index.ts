import { parseAliasTarget } from '../../core/ledger/alias-target';
import { familyKey, recordIdAlias } from '../../core/ledger/entity-key';
import type { EntityKind } from '../../core/ledger/entity-kind';
import { describeFamily } from './describe';
import { isUnsure, type KnownFamily, type KnownPlace, surePlace, UNKNOWN_FAMILY } from './known';
import { learnFamily } from './learn';
import {
  type FamilyId,
  type FamilyState,
  type RecordEvent,
  type RecordOp,
  recordAt,
} from './model';
import type { RecordAnswer } from './operation';
import { operationOf } from './operations';
import { RECORD_FAMILY_PARTS } from './persisted';
import { runRecordStep } from './platform-steps';
import { clientIdOf } from './read-step';
import { replayFamily } from './replay';
import { familySteps, type RecordStep } from './steps';

export type { FamilyId } from './model';

/** What the platform shows of a family: by campaign, its record's field values (or none). */
const values = (state: FamilyState) =>
  Object.fromEntries(
    Object.entries(state)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([campaign, place]) => {
        const record = recordAt(place);
        if (record === undefined) return [campaign, null];
        const fields = Object.entries(record.fields).sort(([a], [b]) => (a < b ? -1 : 1));
        return [campaign, Object.fromEntries(fields.map(([name, field]) => [name, field?.value]))];
      }),
  );

/** Upsert events whose data a record of `state` holds: a later add may need to send it again. */
const keep = (state: FamilyState, events: readonly RecordEvent[]): RecordEvent[] => {
  const needed = new Set(
    Object.values(state).flatMap((place) => recordAt(place)?.fields.data?.v ?? []),
  );
  return events.filter((event) => event.op.kind === 'upsert' && needed.has(event.v));
};

/** Every campaign in doubt: a crashed holder may have changed any of them. */
const doubt = (known: KnownFamily): KnownFamily => ({
  ...known,
  places: Object.fromEntries(
    Object.entries(known.places).map(([c, p]: [string, KnownPlace]) => [
      c,
      isUnsure(p) ? p : { unsure: { before: p, sent: [] } },
    ]),
  ),
});

/**
 * A refused move's destination holds a record made outside: read it again before the next try.
 * Whichever message met the refusal (the move's own, or a later one of the family that found
 * the move still owed), every campaign known to hold such a record is read again.
 */
const recheck = (known: KnownFamily): KnownFamily => ({
  ...known,
  places: Object.fromEntries(
    Object.entries(known.places).map(([c, there]) =>
      isUnsure(there) || recordAt(there)?.origin.kind !== 'outside'
        ? [c, there]
        : [c, { unsure: { before: there, sent: [] } }],
    ),
  ),
});

/** Reads made for an earlier message say nothing of what an agent did since. */
const forMessage = ({ fresh: _, ...known }: KnownFamily): KnownFamily => known;

/** A record family (region + clientId across campaigns) as the ledger orders it. */
export const recordFamily: EntityKind<
  FamilyId,
  RecordOp,
  FamilyState,
  KnownFamily,
  RecordStep,
  RecordAnswer
> = {
  name: 'record-family',
  parts: RECORD_FAMILY_PARTS,
  keyOf: (id) => familyKey(id.region, id.clientId),
  unknown: UNKNOWN_FAMILY,
  doubt,
  recheck,
  forMessage,
  keptByPlatform: (known, desired, op, v) =>
    operationOf(op.kind).keptByPlatform?.(known, desired, v),
  // A record named only by its previewRecordId: one search in the campaign the message names;
  // when it has left that campaign, the ledger's index of the ids it has seen.
  resolve: async (name, { platform, call, store }) => {
    const alias = recordIdAlias(name.region, name.previewRecordId);
    const found = await clientIdOf(name, platform, call);
    if ('failed' in found) return { outcome: found.failed };
    if (found.clientId !== undefined)
      return { id: { region: name.region, clientId: found.clientId }, alias };
    const indexed = await store.readAlias(alias);
    if (indexed !== undefined) {
      return { id: parseAliasTarget(indexed, RECORD_FAMILY_PARTS.id, alias) };
    }
    return {
      outcome: {
        category: 'retryable',
        code: 'RECORD_ID_UNRESOLVED',
        message: `no record with this previewRecordId in "${name.campaignName}", and the ledger has not seen the id: it may arrive there with an event still on its way (retried until the retry window is spent); send clientId to have it ordered with its record`,
        attempts: found.attempts,
      },
    };
  },
  // What a campaign held before the ledger wrote there, then what folded events left.
  start: (known, snapshot) => ({ ...known.base, ...snapshot }),
  replay: replayFamily,
  steps: familySteps,
  run: runRecordStep,
  learn: learnFamily,
  // The campaigns whose record the ledger knows one of our creates made (not one found there).
  createdByUs: (known) => ({
    kind: 'places',
    ours: new Set(
      Object.entries(known.places).flatMap(([campaign, place]) => {
        const record = recordAt(surePlace(place));
        return record?.origin.kind === 'ours' ? [campaign] : [];
      }),
    ),
  }),
  isGone: (desired, known) =>
    Object.values(desired).every((p) => recordAt(p) === undefined) &&
    Object.values(known.places).every((p) => !isUnsure(p) && recordAt(p) === undefined),
  values,
  keep,
  alreadyCode: (op, doubted) => operationOf(op.kind).alreadyCode(doubted),
  describe: describeFamily,
};
