import { deleteCampaignRecord } from '../../../actions/delete-campaign-record';
import { knownAfterWrite } from '../known';
import { NOTHING_THERE, recordAt } from '../model';
import {
  answer,
  NOTHING_MORE,
  type RecordOperation,
  recordIn,
  type WriteStep,
  writeCall,
} from '../operation';

/**
 * delete-campaign-record: removes the record from the campaign it names. A delete of a record not
 * there does nothing (ALREADY_ABSENT), in the replay and on the platform (NORECORDFOUND).
 */

const after = (step: WriteStep<'delete'>) => ({ [step.campaign]: { gone: step.gone } });

export const remove: RecordOperation<'delete'> = {
  apply: (places, v, op) => {
    const here = recordAt(places.get(op.campaign));
    if (!here) {
      // Deleting what is not there: the campaign is still known to be empty from here on.
      if (places.get(op.campaign) === undefined) {
        places.set(op.campaign, { gone: { by: 'delete', v } });
      }
      return {
        kind: 'none',
        code: 'ALREADY_ABSENT',
        reason: `no record with this clientId in "${op.campaign}" at this event's time; nothing to delete`,
      };
    }
    places.set(op.campaign, { gone: { by: 'delete', v } });
    return { kind: 'applied' };
  },

  /** delete: a record already gone is ALREADY_ABSENT, and nothing was removed. */
  run: async (step, { id, platform, call }) => {
    const outcome = await platform.send(
      deleteCampaignRecord,
      { campaignName: step.campaign, ...recordIn(id) },
      writeCall(call),
    );
    if (outcome.code === 'NORECORDFOUND') {
      return {
        outcome: { ...outcome, category: 'success', code: 'ALREADY_ABSENT' },
        status: 'done',
        finding: NOTHING_MORE,
      };
    }
    return answer(outcome, outcome.category === 'success' ? { kind: 'removed' } : NOTHING_MORE);
  },

  touched: (step) => [step.campaign],

  sent: () => [],

  after,

  // A delete that removed something at a campaign's first write removed a record made outside.
  learn: (known, step, { finding }) =>
    knownAfterWrite(
      known,
      [step.campaign],
      after(step),
      finding.kind === 'removed'
        ? { record: { origin: { kind: 'outside' }, fields: {} } }
        : NOTHING_THERE,
    ),

  // ALREADY_DELETED when this message's own unanswered call is what removed it.
  alreadyCode: (doubted) => (doubted ? 'ALREADY_DELETED' : 'ALREADY_ABSENT'),
};
