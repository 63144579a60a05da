import { changeCampaignRecordStatus } from '../../../actions/change-campaign-record-status';
import { isPlatformVersion, versionTime } from '../../../core/ledger/event-version';
import { success } from '../../../core/pipeline/outcome';
import type { WorkedState } from '../../../core/platform/platform-responses';
import { knownAfterWrite, type Observed, readVersion, surePlace } from '../known';
import { RECORD_FIELDS, type RecordField, type RecordState, recordAt, routingSets } from '../model';
import {
  answerAt,
  failed,
  fieldsAt,
  fieldsSent,
  NO_RECORD,
  NOTHING_MORE,
  notThere,
  type RecordOperation,
  recordIn,
  routingRequest,
  writeCall,
} from '../operation';
import { lookUp } from '../read-step';

/**
 * change-campaign-record-status: sets the state (and the routing fields it carries) of the record
 * in the campaign it names; nothing when no record is there at its time. An agent's work on the
 * record after the event keeps the state as the agent left it.
 */

/** Values the call did not send, as the look-up before it found them; versions stay. */
const refreshed = (
  record: RecordState,
  observed: Observed,
  sent: readonly RecordField[],
): RecordState => ({
  ...record,
  fields: Object.fromEntries(
    RECORD_FIELDS.flatMap((name) => {
      const field = record.fields[name];
      if (sent.includes(name) || !(name in observed.values))
        return field === undefined ? [] : [[name, field]];
      return [
        [name, { v: readVersion(name, field, observed), value: observed.values[name] ?? null }],
      ];
    }),
  ),
});

export const status: RecordOperation<'status'> = {
  /**
   * The replay's rule. What a change to it can rely on, each held by the test named:
   * - `places` holds every campaign the family has been in as the events before this one left
   *   them, in version order whatever order they came in (replay.ts; the convergence suites).
   * - A campaign with no record says why (`goneAt`): a transfer's `Gone` names the campaign it
   *   moved the record `to` (`null` in an item written before `to` was kept:
   *   record-family-items-v3.test.ts); a status change there finds nothing and leaves it
   *   (test/unit/entities/record-family-model.test.ts). A moved record keeps its incarnation
   *   (`born`); an add after a delete makes a new one (the same test).
   * - A `NO_RECORD` effect keeps the event for an older one that puts the record there: NO_EFFECT,
   *   or STALE_SKIPPED once a newer event took effect (message-outcome.ts rules 3–5).
   * - The family's steps (steps.ts) come from the state the replay leaves, not from the ops: each
   *   record gets the fields whose version there differs from the one the ledger knows applied
   *   (`dueFields`), its state only after a read of its campaign for this message
   *   (record-family-steps.test.ts, "reads a moved record again before its state goes").
   * - Status changes addressed to a campaign the record left, as a producer a step behind sends
   *   them, are in the move-chain suite's histories (`staleAddresses`,
   *   test/reliability/convergence-histories.test.ts), which hold this rule to the oracle's
   *   (local/convergence/model.ts) under any delivery. They name the record by clientId: a step
   *   by previewRecordId names it where it is (test/reliability/convergence/histories.test.ts,
   *   "name records by previewRecordId").
   */
  apply: (places, v, op) => {
    const here = recordAt(places.get(op.campaign));
    if (!here) return NO_RECORD(op.campaign);
    const fields = {
      ...here.fields,
      ...fieldsAt(v, { state: op.state, ...routingSets(op.routing) }),
    };
    places.set(op.campaign, { record: { ...here, fields } });
    return { kind: 'applied' };
  },

  /**
   * change-status. The request needs a state: when the step sets none (or WORKED without a next
   * work time), the record's own, read now, so an agent's work is kept.
   */
  run: async (step, context) => {
    const { fields } = step;
    const needsRead =
      fields.state === undefined ||
      (fields.state === 'WORKED' && typeof fields.nextWork !== 'number');
    const found = needsRead ? await lookUp(step.campaign, context) : undefined;
    if (found !== undefined && 'failed' in found) return failed(found.failed);
    if (found?.observed === null) return notThere(success('NORECORDFOUND', 'not found'));
    const observed = found?.observed;
    const outcome = await context.platform.send(
      changeCampaignRecordStatus,
      {
        campaignName: step.campaign,
        ...recordIn(context.id),
        previewRecordStateEnum: (fields.state ?? observed?.values.state ?? null) as WorkedState,
        ...routingRequest({
          ...fields,
          nextWork: fields.nextWork ?? observed?.values.nextWork ?? null,
        }),
      },
      writeCall(context.call),
    );
    return answerAt(outcome, observed === undefined ? NOTHING_MORE : { kind: 'found', observed });
  },

  touched: (step) => [step.campaign],

  sent: fieldsSent,

  after: (step) => ({ [step.campaign]: step.place }),

  // What the call's look-up found of the fields it did not send is what the platform holds.
  learn: (known, step, { finding }) => {
    const record = recordAt(step.place);
    const place =
      record !== undefined && finding.kind === 'found'
        ? { record: refreshed(record, finding.observed, fieldsSent(step)) }
        : step.place;
    return knownAfterWrite(known, [step.campaign], { [step.campaign]: place });
  },

  /**
   * A status change older than an agent's work on its record, as a read found it, sets nothing.
   * The record is wherever the replay has the state this event set (it may have moved since).
   */
  keptByPlatform: (known, desired, v) => {
    for (const [campaign, place] of Object.entries(desired)) {
      if (recordAt(place)?.fields.state?.v !== v) continue;
      const state = recordAt(surePlace(known.places[campaign]))?.fields.state;
      if (state === undefined || !isPlatformVersion(state.v) || state.v < v) continue;
      return `an agent worked this record in "${campaign}" after this event (lastAttemptTime ${new Date(versionTime(state.v)).toISOString()}): its state stays as the agent left it`;
    }
    return undefined;
  },

  alreadyCode: () => 'ALREADY_APPLIED',
};
