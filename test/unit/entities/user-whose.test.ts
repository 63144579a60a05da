import { describe, expect, it } from 'vitest';
import { type KnownUser, type Whose, whoseUser } from '../../../lambdas/entities/user/known';

const OURS = { user: { origin: 'ours', born: '1', at: '1' } } as const;
const THEIRS = { user: { origin: 'outside' } } as const;
const GONE = { gone: { by: 'delete', v: '2' } } as const;
const base = { stage: 'written', place: { gone: { by: 'nothing' } } } as const;

describe('whose user the ledger knows the platform holds (what SCIM answers from)', () => {
  it.each<[string, KnownUser | undefined, Whose | undefined]>([
    ['no item', undefined, undefined],
    ['nothing known', { base: { stage: 'unseen' } }, undefined],
    ['created by us', { place: OURS, base }, 'ours'],
    [
      'created before the ledger kept versions',
      { place: { user: { origin: 'ours-unversioned' } }, base },
      'ours',
    ],
    ['someone else’s', { place: THEIRS, base }, 'theirs'],
    ['not there', { place: GONE, base }, 'absent'],
    [
      'in doubt between ours and gone',
      { place: { unsure: { before: OURS, after: GONE } }, base },
      undefined,
    ],
    [
      'a refused add: someone else’s, to be read again',
      { place: { unsure: { before: THEIRS } }, base },
      'theirs',
    ],
  ])('%s', (_, known, expected) => {
    // Act
    const whose = whoseUser(known);

    // Assess
    expect(whose).toBe(expected);
  });
});
