import { deleteUser } from '../../../actions/delete-user';
import { stepStatus } from '../../../core/ledger/entity-kind';
import { baseAfterWrite, NOTHING_THERE, SOMEONE_ELSES } from '../known';
import { userAt } from '../model';
import { type UserOperation, writeCall } from '../operation';

/**
 * delete-user: removes the user. A delete of a user not there does nothing (ALREADY_ABSENT), in
 * the replay and on the platform (NOT_FOUND).
 */
export const remove: UserOperation<'delete'> = {
  apply: (state, v) => {
    if (userAt(state.place) !== undefined) {
      return { state: { place: { gone: { by: 'delete', v } } }, effect: { kind: 'applied' } };
    }
    return {
      state: state.place === undefined ? { place: { gone: { by: 'delete', v } } } : state,
      effect: {
        kind: 'none',
        code: 'ALREADY_ABSENT',
        reason: 'the user is not there at this event’s time; nothing to delete',
      },
    };
  },

  run: async (_step, { id, platform, call }) => {
    const outcome = await platform.send(
      deleteUser,
      { loginUserId: id.loginUserId },
      writeCall(call),
    );
    if (outcome.code === 'NOT_FOUND') {
      return {
        outcome: { ...outcome, category: 'success', code: 'ALREADY_ABSENT' },
        status: 'done',
        finding: 'nothing-more',
      };
    }
    const finding = outcome.category === 'success' ? 'removed' : 'nothing-more';
    return { outcome, status: stepStatus(outcome), finding };
  },

  after: (step) => ({ gone: step.gone }),

  learn: (known, step, answer) => ({
    place: { gone: step.gone },
    // A user the ledger removed without knowing what was there before was someone else's.
    base: baseAfterWrite(known.base, answer.finding === 'removed' ? SOMEONE_ELSES : NOTHING_THERE),
  }),

  // ALREADY_DELETED when this message's own unanswered call is what removed it.
  alreadyCode: (doubted) => (doubted ? 'ALREADY_DELETED' : 'ALREADY_ABSENT'),
};
