import { addUser } from '../../actions/add-user';
import { deleteUser } from '../../actions/delete-user';
import { existenceResult, queryUserExistence } from '../../actions/query-user-existence';
import { type StepContext, stepStatus } from '../../core/ledger/entity-kind';
import type { UserAnswer } from './learn';
import { NOT_OURS_TO_DO, type UserId, type UserOp } from './model';
import type { UserStep } from './steps';

const looked = async ({ id, platform, call }: StepContext<UserId, UserOp>) =>
  platform.send(queryUserExistence, { loginUserId: id.loginUserId }, call);

/** Sends one step as its platform request and reads what the answer tells the ledger. */
export const runUserStep = async (
  step: UserStep,
  context: StepContext<UserId, UserOp>,
): Promise<UserAnswer> => {
  const { id, events, platform, call } = context;
  // A write stops at its first unanswered attempt: a read tells next whether it landed.
  const once = { ...call, stopAtDoubt: true };
  switch (step.kind) {
    case 'read': {
      const outcome = await looked(context);
      if (outcome.code === 'NOT_FOUND') {
        return { outcome: { ...outcome, category: 'success' }, status: 'done', finding: 'absent' };
      }
      if (outcome.category !== 'success')
        return { outcome, status: 'failed', finding: 'nothing-more' };
      const finding = existenceResult(outcome).exists ? 'there' : 'absent';
      return { outcome, status: 'done', finding };
    }
    case 'conflict':
      return {
        outcome: {
          category: 'permanent',
          code: 'USER_EXISTS_NOT_OURS',
          message: `the platform holds a user with this loginUserId that this integration did not create: ${NOT_OURS_TO_DO}`,
          attempts: 0,
        },
        status: 'failed',
        finding: 'nothing-more',
      };
    case 'delete': {
      const outcome = await platform.send(deleteUser, { loginUserId: id.loginUserId }, once);
      if (outcome.code === 'NOT_FOUND') {
        return {
          outcome: { ...outcome, category: 'success', code: 'ALREADY_ABSENT' },
          status: 'done',
          finding: 'nothing-more',
        };
      }
      const finding = outcome.category === 'success' ? 'removed' : 'nothing-more';
      return { outcome, status: stepStatus(outcome), finding };
    }
    case 'add': {
      const add = events.find((event) => event.v === step.of && event.op.kind === 'add');
      if (add?.op.kind !== 'add') throw new Error(`the fields of add ${step.of} are not kept`);
      const user = add.op.user;
      const outcome = await platform.send(addUser, { loginUserId: id.loginUserId, ...user }, once);
      if (outcome.code !== 'ALREADY_EXISTS') {
        return { outcome, status: stepStatus(outcome), finding: 'nothing-more' };
      }
      // Ours when the ledger knows it created the user there, or when an earlier attempt of this
      // very call went unanswered: the ledger looked before its first add, so a user there now
      // that no attempt of ours made is someone else's.
      if (!step.ours && outcome.afterDoubt !== true) {
        return { outcome: { ...outcome, category: 'success' }, status: 'done', finding: 'theirs' };
      }
      if (user.createInCloudConnect === true) {
        const existing = await looked(context);
        if (existing.category !== 'success') {
          return { outcome: existing, status: 'failed', finding: 'nothing-more' };
        }
        if (existenceResult(existing).cloudConnectStatus !== 'EXISTS') {
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
    }
  }
};
