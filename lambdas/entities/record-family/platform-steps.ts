import type { StepContext } from '../../core/ledger/entity-kind';
import { success } from '../../core/pipeline/outcome';
import type { KnownFamily } from './known';
import { type FamilyId, OCCUPIED_TO_DO, type RecordOp } from './model';
import { NOTHING_MORE, type RecordAnswer } from './operation';
import { operationOf } from './operations';
import { runRead } from './read-step';
import type { RecordStep } from './steps';

/**
 * Sends one step as its platform request and reads what the answer tells the ledger: the read
 * step's by `read-step.ts`, the steps that make no call here, a write's by its operation
 * (`operations/`).
 */
export const runRecordStep = async (
  step: RecordStep,
  context: StepContext<FamilyId, RecordOp, KnownFamily>,
): Promise<RecordAnswer> => {
  switch (step.kind) {
    case 'read':
      return runRead(step, context);
    case 'note':
      return { outcome: success('SUCCESS', 'noted'), status: 'done', finding: NOTHING_MORE };
    case 'conflict':
      // No call: the platform would refuse the move, and no retry can change that.
      return {
        outcome: {
          category: 'permanent',
          code: 'TRANSFER_TARGET_OCCUPIED',
          message: `"${step.campaign}" holds a record with this clientId that this integration did not put there, so its record cannot be moved there: ${OCCUPIED_TO_DO}`,
          attempts: 0,
        },
        status: 'failed',
        finding: NOTHING_MORE,
      };
    default:
      return operationOf(step.kind).run(step, context);
  }
};
