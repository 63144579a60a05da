import { existenceResult, queryUserExistence } from '../../actions/query-user-existence';
import type { StepContext } from '../../core/ledger/entity-kind';
import type { Outcome } from '../../core/pipeline/outcome';
import type { UserId, UserOp } from './model';
import type { UserAnswer } from './operation';

/** Asks the platform whether the user is there (query-user-existence), with the message's call options. */
export const lookUp = async ({ id, platform, call }: StepContext<UserId, UserOp, unknown>) =>
  platform.send(queryUserExistence, { loginUserId: id.loginUserId }, call);

/** Whether the backing contact-center instance holds a user a successful `lookUp` found. */
export const inCloudConnect = (found: Outcome): boolean =>
  existenceResult(found).cloudConnectStatus === 'EXISTS';

/** The read step: settles a doubt, or looks before the first add. NOT_FOUND is an answer: absent. */
export const runRead = async (
  context: StepContext<UserId, UserOp, unknown>,
): Promise<UserAnswer> => {
  const outcome = await lookUp(context);
  if (outcome.code === 'NOT_FOUND') {
    return { outcome: { ...outcome, category: 'success' }, status: 'done', finding: 'absent' };
  }
  if (outcome.category !== 'success') return { outcome, status: 'failed', finding: 'nothing-more' };
  const finding = existenceResult(outcome).exists ? 'there' : 'absent';
  return { outcome, status: 'done', finding };
};
