import type { Effect, StepAnswer, StepContext } from '../../core/ledger/entity-kind';
import type { Version } from '../../core/ledger/event-version';
import type { OutcomeCode } from '../../core/pipeline/outcome';
import type { CallOptions } from '../../core/platform/platform-caller';
import type { KnownUser } from './known';
import type { UserId, UserOp, UserPlace, UserState } from './model';
import type { UserStep } from './steps';

/**
 * What one user operation (an op of `UserOp`, an action's message) is, all in its own module
 * under `operations/`: the shared code (replay, planner, step runner, learn) asks it by name, so a
 * change to what an action does is read and made in that one file. `K` names the op, and the
 * write step the planner makes for it, which carry the same kind. Which of its codes a message
 * gets (its `apply` effect's, its `run` answer's, its `alreadyCode`) is decided in one table:
 * `core/ledger/message-outcome.ts`.
 */
export interface UserOperation<K extends UserOp['kind']> {
  /** What the op does to the model at its version, as the platform would apply its request. Pure. */
  apply(state: UserState, v: Version, op: Extract<UserOp, { kind: K }>): Applied;
  /**
   * Sends its step's request (through `writeCall`) and reads the answer for the ledger; `context`
   * also holds what the ledger knows as the step starts (`known.ts` answers questions of it, such
   * as `whoseUser`). Unless an earlier rule of `message-outcome.ts` decides (a failed call, a
   * conflict or nothing to act on in the replay), the outcome it returns for a call the platform
   * answered with success is the message's, whatever its code, the last one's when a message
   * makes several (rule 6; test/unit/ledger/entity-ledger.test.ts, "a write the platform
   * answered", holds delete-user's NOT_FOUND read as ALREADY_ABSENT).
   */
  run(step: WriteStep<K>, context: StepContext<UserId, UserOp, KnownUser>): Promise<UserAnswer>;
  /** Where its write leaves the user: one candidate while the call's answer is missing. */
  after(step: WriteStep<K>): UserPlace;
  /** What the ledger knows after the platform answered its step (status `done`). Pure. */
  learn(known: KnownUser, step: WriteStep<K>, answer: UserAnswer): KnownUser;
  /** Its code when its state was already in place; `doubted`: an unanswered call of ours did it. */
  alreadyCode(doubted: boolean): OutcomeCode;
}

/** What a step's call told the ledger, beyond its status. */
export type UserFinding =
  /** A read found the user there. */
  | 'there'
  /** A read found no user. */
  | 'absent'
  /** add-user answered ALREADY_EXISTS with no earlier attempt of the call unanswered: not ours. */
  | 'theirs'
  /** delete-user removed a user (it did not answer NOT_FOUND). */
  | 'removed'
  /** Nothing beyond its status: it failed or went unanswered, added the user, found ours there, or deleted nothing. */
  | 'nothing-more';

export interface UserAnswer extends StepAnswer {
  readonly finding: UserFinding;
}

export interface Applied {
  readonly state: UserState;
  readonly effect: Effect;
}

export type WriteStep<K extends UserOp['kind']> = Extract<UserStep, { kind: K }>;

/**
 * A write stops at its first unanswered attempt, so no answer it gets follows an attempt that may
 * have landed: a read tells next whether it did (`platform-caller.test.ts`, "a write that may
 * have landed").
 */
export const writeCall = (call: CallOptions): CallOptions => ({ ...call, stopAtDoubt: true });
