import { describe, expect, it } from 'vitest';
import { messageOutcome, type OutcomeFacts } from '../../../lambdas/core/ledger/message-outcome';
import type { Outcome } from '../../../lambdas/core/pipeline/outcome';

const failed: Outcome = {
  category: 'retryable',
  code: 'PLATFORM_UNAVAILABLE',
  message: '503',
  attempts: 3,
};
const written: Outcome = { category: 'success', code: 'SUCCESS', message: 'ok', attempts: 1 };

/** Facts under which every rule but the last fails: the op's "already" code. */
const base: OutcomeFacts = {
  effect: { kind: 'applied' },
  failure: undefined,
  wrote: undefined,
  doubted: false,
  overtaken: false,
  keptByPlatform: () => undefined,
  stale: () => false,
  alreadyCode: (doubted) => (doubted ? 'ALREADY_DELETED' : 'ALREADY_ABSENT'),
};
const none = { kind: 'none', code: 'NO_EFFECT', reason: 'no record there' } as const;
const conflict = {
  kind: 'conflict',
  code: 'TRANSFER_TARGET_OCCUPIED',
  reason: 'occupied',
} as const;

describe('messageOutcome: the first rule that holds picks the code', () => {
  it.each<[string, Partial<OutcomeFacts>, Pick<Outcome, 'category' | 'code'>]>([
    [
      '1. a call that did not settle wins over all',
      { failure: failed, effect: conflict, wrote: written },
      failed,
    ],
    [
      '2. a conflict in the replay is permanent',
      { effect: conflict, wrote: written },
      { category: 'permanent', code: 'TRANSFER_TARGET_OCCUPIED' },
    ],
    [
      '3. nothing to act on after our unanswered call: already, doubted',
      { effect: none, doubted: true, overtaken: true },
      { category: 'success', code: 'ALREADY_DELETED' },
    ],
    [
      '4. nothing to act on, overtaken by a newer event',
      { effect: none, overtaken: true },
      { category: 'success', code: 'STALE_SKIPPED' },
    ],
    [
      '5. nothing to act on: the effect names the code',
      { effect: none, wrote: written },
      { category: 'success', code: 'NO_EFFECT' },
    ],
    ['6. the answer to the write it sent', { wrote: written, stale: () => true }, written],
    [
      '7. kept from effect by work on the platform',
      { keptByPlatform: () => 'an agent worked it', stale: () => true },
      { category: 'success', code: 'STALE_SKIPPED' },
    ],
    [
      '8. newer events decided everything it sets',
      { stale: () => true, doubted: true },
      { category: 'success', code: 'STALE_SKIPPED' },
    ],
    [
      '9. otherwise the op says it was already so',
      {},
      { category: 'success', code: 'ALREADY_ABSENT' },
    ],
    [
      '9. … by our unanswered call',
      { doubted: true },
      { category: 'success', code: 'ALREADY_DELETED' },
    ],
  ])('%s', (_rule, facts, expected) => {
    // Prepare
    const all: OutcomeFacts = { ...base, ...facts };
    // Act
    const outcome = messageOutcome(all);
    // Assess
    expect(outcome).toMatchObject(expected);
  });

  it('tells rule 7 from rule 8 by its reason', () => {
    // Act
    const kept = messageOutcome({
      ...base,
      keptByPlatform: () => 'an agent worked it',
      stale: () => true,
    });

    // Assess
    expect(kept).toMatchObject({ code: 'STALE_SKIPPED', message: 'an agent worked it' });
  });

  it.each<[string, Partial<OutcomeFacts>, number, number]>([
    ['a failed call', { failure: failed }, 0, 0],
    ['nothing to act on', { effect: none }, 0, 0],
    ['the answer of its write', { wrote: written }, 0, 0],
    ['rule 7 or later', {}, 1, 1],
  ])(
    'after %s, asks keptByPlatform %i and the second replay %i times',
    (_when, facts, kept, stale) => {
      // Prepare
      const asked = { kept: 0, stale: 0 };
      const counted: OutcomeFacts = {
        ...base,
        ...facts,
        keptByPlatform: () => {
          asked.kept += 1;
          return undefined;
        },
        stale: () => {
          asked.stale += 1;
          return false;
        },
      };

      // Act
      messageOutcome(counted);

      // Assess
      expect(asked).toEqual({ kept, stale });
    },
  );
});
