/**
 * The user's replay against the provisioning spec: add-user creates a user that is not there
 * (ALREADY_EXISTS otherwise), delete-user removes one (NOT_FOUND otherwise).
 */
import { describe, expect, it } from 'vitest';
import type { Effect } from '../../../lambdas/core/ledger/entity-kind';
import type { UserOp, UserState } from '../../../lambdas/entities/user/model';
import { replayUser } from '../../../lambdas/entities/user/replay';

const ADD: UserOp = {
  kind: 'add',
  user: { firstName: 'Ada', lastName: 'L', userTemplateName: 'Agent' },
};
const DELETE: UserOp = { kind: 'delete' };
const SOMEONE_ELSES: UserState = { place: { user: { origin: 'outside' } } };

describe('user replay: each request as the provisioning spec applies it', () => {
  it.each<[string, UserState, UserOp[], UserState, (Effect['kind'] | string)[]]>([
    [
      'an add of a user not there creates it',
      {},
      [ADD],
      { place: { user: { origin: 'ours', born: '1', at: '1' } } },
      ['applied'],
    ],
    [
      'an add of a user this integration created asks again (it is there, or added back)',
      {},
      [ADD, ADD],
      { place: { user: { origin: 'ours', born: '1', at: '2' } } },
      ['applied', 'applied'],
    ],
    [
      'an add of a user someone else made is refused: never adopted',
      SOMEONE_ELSES,
      [ADD],
      SOMEONE_ELSES,
      ['USER_EXISTS_NOT_OURS'],
    ],
    [
      'a delete removes the user',
      {},
      [ADD, DELETE],
      { place: { gone: { by: 'delete', v: '2' } } },
      ['applied', 'applied'],
    ],
    [
      'a delete removes a user someone else made, as HR asks',
      SOMEONE_ELSES,
      [DELETE],
      { place: { gone: { by: 'delete', v: '1' } } },
      ['applied'],
    ],
    [
      'a delete of a user not there has no effect',
      {},
      [DELETE],
      { place: { gone: { by: 'delete', v: '1' } } },
      ['ALREADY_ABSENT'],
    ],
    [
      'an add after a delete creates the user again',
      {},
      [ADD, DELETE, ADD],
      { place: { user: { origin: 'ours', born: '3', at: '3' } } },
      ['applied', 'applied', 'applied'],
    ],
  ])('%s', (_name, start, ops, expected, effects) => {
    // Prepare
    const events = ops.map((op, i) => ({
      key: `e@${i + 1}`,
      v: String(i + 1),
      action: 'test',
      op,
    }));
    // Act
    const replayed = replayUser(start, events);
    // Assess
    expect(replayed.state).toEqual(expected);
    expect(
      events.map((e) => {
        const effect = replayed.effects.get(e.key);
        return effect?.kind === 'applied' ? 'applied' : effect?.code;
      }),
    ).toEqual(effects);
  });
});
