import { addUser } from '../../../actions/add-user';
import { stepStatus } from '../../../core/ledger/entity-kind';
import {
  baseAfterFinding,
  baseAfterWrite,
  NOTHING_THERE,
  SOMEONE_ELSES,
  whoseUser,
} from '../known';
import { NOT_OURS_TO_DO, userAt } from '../model';
import { type UserOperation, writeCall } from '../operation';
import { inCloudConnect, lookUp } from '../read-step';

/**
 * add-user: creates the user (ALREADY_EXISTS when there). Never adopts a user someone else made:
 * the ledger looks before its first add, so a user there that no call of ours explains is theirs.
 */
export const add: UserOperation<'add'> = {
  apply: (state, v) => {
    const user = userAt(state.place);
    if (user === undefined) {
      return {
        state: { place: { user: { origin: 'ours', born: v, at: v } } },
        effect: { kind: 'applied' },
      };
    }
    if (user.origin === 'outside') {
      return {
        state,
        effect: {
          kind: 'conflict',
          code: 'USER_EXISTS_NOT_OURS',
          reason: `a user with this loginUserId was on the platform before this integration first asked for it, so this integration did not create it: ${NOT_OURS_TO_DO}`,
        },
      };
    }
    // Asked for again: the platform answers ALREADY_EXISTS, or adds it if it went missing.
    return { state: { place: { user: { ...user, at: v } } }, effect: { kind: 'applied' } };
  },

  run: async (step, context) => {
    const { id, events, platform, call } = context;
    const asked = events.find((event) => event.v === step.of && event.op.kind === 'add');
    if (asked?.op.kind !== 'add') throw new Error(`the fields of add ${step.of} are not kept`);
    const user = asked.op.user;
    const outcome = await platform.send(
      addUser,
      { loginUserId: id.loginUserId, ...user },
      writeCall(call),
    );
    if (outcome.code !== 'ALREADY_EXISTS') {
      return { outcome, status: stepStatus(outcome), finding: 'nothing-more' };
    }
    // Ours when the ledger knows it created the user there (ALREADY_EXISTS is then in place): it
    // looked before its first add, so a user there now that no call of ours made is someone
    // else's. A write stops at its first unanswered attempt (`writeCall`), so no earlier attempt
    // of this call can have made it.
    if (whoseUser(context.known) !== 'ours') {
      return { outcome: { ...outcome, category: 'success' }, status: 'done', finding: 'theirs' };
    }
    if (user.createInCloudConnect === true) {
      const existing = await lookUp(context);
      if (existing.category !== 'success') {
        return { outcome: existing, status: 'failed', finding: 'nothing-more' };
      }
      if (!inCloudConnect(existing)) {
        return {
          outcome: {
            ...outcome,
            category: 'permanent',
            message:
              'user already exists on the platform but not in the backing contact-center instance; the API cannot add it there for an existing user',
          },
          status: 'failed',
          finding: 'nothing-more',
        };
      }
    }
    return {
      outcome: { ...outcome, category: 'success', message: 'user was already provisioned' },
      status: 'done',
      finding: 'nothing-more',
    };
  },

  after: (step) => step.place,

  learn: (known, step, answer) =>
    answer.finding === 'theirs'
      ? // Someone else made it since the ledger last looked.
        { place: SOMEONE_ELSES, base: baseAfterFinding(known.base, SOMEONE_ELSES) }
      : { place: step.place, base: baseAfterWrite(known.base, NOTHING_THERE) },

  alreadyCode: () => 'ALREADY_EXISTS',
};
