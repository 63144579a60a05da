import { type Outcome, type OutcomeCode, success } from '../pipeline/outcome';
import type { Effect } from './entity-kind';

/**
 * Which outcome code a message of an ordered entity gets, for any kind: the one place that
 * chooses, so an operation's module (its `apply` effect, its `run` answer, its `alreadyCode`)
 * is all a change to one action's codes needs. The first rule that holds wins:
 *
 * | # | when | outcome |
 * |---|---|---|
 * | 1 | a call of the message failed or went unanswered past its budget | that call's outcome |
 * | 2 | its event is a conflict in the replay | permanent, the effect's code |
 * | 3 | nothing to act on, and a call of this message went unanswered | success, `alreadyCode(true)` |
 * | 4 | nothing to act on, and a newer event took effect since | success, STALE_SKIPPED |
 * | 5 | nothing to act on | success, the effect's code (the op's `apply` names it) |
 * | 6 | the message sent a write the platform answered | that answer (the op's `run` reads it) |
 * | 7 | work on the platform after the event keeps it from taking effect | success, STALE_SKIPPED |
 * | 8 | without this event the entity would hold the same values | success, STALE_SKIPPED |
 * | 9 | otherwise: the platform already holds it | success, `alreadyCode(doubted)` |
 *
 * A copy of an event the ledger already settled is DUPLICATE before any of this (entity-ledger.ts).
 * Rule 6's write is a call the platform answered with success (`learnt` in entity-ledger.ts), so
 * an operation's `run` may read a NOT_FOUND as ALREADY_ABSENT and the message gets that code.
 * test/unit/ledger/message-outcome.test.ts holds each rule and their order.
 */
export interface OutcomeFacts {
  /** What the message's event does in the replay. */
  readonly effect: Effect;
  /** Rule 1: the outcome of a call that did not settle. */
  readonly failure: Outcome | undefined;
  /** Rule 6: the answer to the write this message sent. */
  readonly wrote: Outcome | undefined;
  /** A call of this message went unanswered, and reading back showed its work done. */
  readonly doubted: boolean;
  /** A newer event of the entity took effect. */
  readonly overtaken: boolean;
  /** Why work on the platform after this event keeps it from taking effect, if it does. */
  readonly keptByPlatform: () => string | undefined;
  /** Without this event, the entity would hold the same values (a second replay: asked last). */
  readonly stale: () => boolean;
  /** The operation's code for a state already in place (`doubted`: our unanswered call did it). */
  readonly alreadyCode: (doubted: boolean) => OutcomeCode;
}

export const messageOutcome = (facts: OutcomeFacts): Outcome => {
  const { effect } = facts;
  if (facts.failure !== undefined) return facts.failure;
  if (effect.kind === 'conflict') {
    return { category: 'permanent', code: effect.code, message: effect.reason, attempts: 0 };
  }
  if (effect.kind === 'none') {
    if (facts.doubted) {
      return success(
        facts.alreadyCode(true),
        'a request of this message went unanswered; reading back showed it done',
      );
    }
    return facts.overtaken
      ? success(
          'STALE_SKIPPED',
          `${effect.reason}; newer events of this entity have decided its state since`,
        )
      : success(effect.code, effect.reason);
  }
  if (facts.wrote !== undefined) return facts.wrote;
  const kept = facts.keptByPlatform();
  if (kept !== undefined) return success('STALE_SKIPPED', kept);
  if (facts.stale()) {
    return success(
      'STALE_SKIPPED',
      'newer events of this entity already decided everything this event sets',
    );
  }
  return success(
    facts.alreadyCode(facts.doubted),
    'the platform already holds what this event asks for',
  );
};
