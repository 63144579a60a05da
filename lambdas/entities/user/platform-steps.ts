import type { StepContext } from '../../core/ledger/entity-kind';
import type { KnownUser } from './known';
import { NOT_OURS_TO_DO, type UserId, type UserOp } from './model';
import type { UserAnswer } from './operation';
import { operationOf } from './operations';
import { runRead } from './read-step';
import type { UserStep } from './steps';

/**
 * Sends one step as its platform request and reads what the answer tells the ledger: the read
 * step's here (`read-step.ts`), a write's by its operation (`operations/`).
 */
export const runUserStep = async (
  step: UserStep,
  context: StepContext<UserId, UserOp, KnownUser>,
): Promise<UserAnswer> => {
  switch (step.kind) {
    case 'read':
      return runRead(context);
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
    default:
      return operationOf(step.kind).run(step, context);
  }
};
