import { transferCampaignRecord } from '../../../actions/transfer-campaign-record';
import { asBase, type KnownPlace, knownAfterWrite, placeAfterRead } from '../known';
import { OCCUPIED_TO_DO, recordAt, routingSets } from '../model';
import {
  answerAt,
  fieldsAt,
  fieldsSent,
  NO_RECORD,
  type RecordOperation,
  recordIn,
  routingRequest,
  type WriteStep,
  writeCall,
} from '../operation';
import { lookUp } from '../read-step';

/**
 * transfer-campaign-record: moves the record from the campaign it names to another, with the
 * routing fields it carries; refused (TRANSFER_TARGET_OCCUPIED) when the destination holds a
 * record with this clientId, nothing when no record is there to move at its time.
 */

/**
 * Where the call leaves both campaigns. The source's Gone names the campaign this call moved the
 * record to: a chain of moves sent as one call (A→B→C as A→C) left it in C, not in B.
 */
const after = (step: WriteStep<'transfer'>) => ({
  [step.from]: { gone: step.gone.by === 'transfer' ? { ...step.gone, to: step.to } : step.gone },
  [step.to]: step.place,
});

/**
 * A read vouches for the record it found, not for its campaign: after a move, the destination
 * holds the record the source held, read for this message only if the source was.
 */
const freshAfterMove = (fresh: readonly string[], move: WriteStep<'transfer'>): string[] => [
  ...fresh.filter((c) => c !== move.to),
  ...(fresh.includes(move.from) ? [move.to] : []),
];

export const transfer: RecordOperation<'transfer'> = {
  apply: (places, v, op) => {
    const here = recordAt(places.get(op.campaign));
    if (!here) return NO_RECORD(op.campaign);
    if (recordAt(places.get(op.to)) !== undefined) {
      return {
        kind: 'conflict',
        code: 'TRANSFER_TARGET_OCCUPIED',
        reason: `"${op.to}" already holds a record with this clientId, so the platform cannot move the one in "${op.campaign}" there; nothing was moved: ${OCCUPIED_TO_DO}`,
      };
    }
    const fields = { ...here.fields, ...fieldsAt(v, routingSets(op.routing)) };
    places.set(op.to, { record: { ...here, at: v, fields } });
    places.set(op.campaign, { gone: { by: 'transfer', v, to: op.to } });
    return { kind: 'applied' };
  },

  /**
   * transfer. The platform refuses (FAILED) a move into a campaign that holds this clientId
   * already: look there before trying again, since a retry cannot change that.
   */
  run: async (step, context) => {
    const { platform, call } = context;
    const request = {
      campaignName: step.from,
      ...recordIn(context.id),
      transferToCampaign: step.to,
      ...routingRequest(step.fields),
    };
    const first = await platform.send(transferCampaignRecord, request, {
      ...writeCall(call),
      maxAttempts: 1,
    });
    if (first.code !== 'FAILED') return answerAt(first);
    const there = await lookUp(step.to, context);
    if (!('failed' in there) && there.observed !== null) {
      return {
        outcome: first,
        status: 'done',
        finding: { kind: 'occupied', observed: there.observed },
      };
    }
    if (platform.maxAttempts <= 1) return answerAt(first);
    const retried = await platform.send(transferCampaignRecord, request, {
      ...writeCall(call),
      maxAttempts: platform.maxAttempts - 1,
    });
    return answerAt({ ...retried, attempts: retried.attempts + first.attempts });
  },

  touched: (step) => [step.from, step.to],

  sent: fieldsSent,

  after,

  learn: (known, step, { finding }) => {
    if (finding.kind === 'occupied') {
      // Nothing moved: the destination holds a record the ledger did not know of. Until the ledger
      // writes there, it is what the campaign held before: the replay then refuses the move too.
      const places: Record<string, KnownPlace> = { ...known.places };
      const base = { ...known.base };
      places[step.to] = placeAfterRead(known.places[step.to], finding.observed);
      if (!known.written.includes(step.to)) base[step.to] = asBase(finding.observed);
      return { ...known, places, base };
    }
    return {
      ...knownAfterWrite(known, [step.from, step.to], after(step)),
      fresh: freshAfterMove(known.fresh ?? [], step),
    };
  },

  // ALREADY_TRANSFERRED when this message's own unanswered call is what moved it.
  alreadyCode: (doubted) => (doubted ? 'ALREADY_TRANSFERRED' : 'ALREADY_APPLIED'),
};
