/**
 * The entity ledger's mechanism (lease, events, replay, plan, commit) on histories that the
 * ordering properties reach only by chance: a refusal found on the platform and then fixed by an
 * operator. The user kind runs its real platform steps against the simulator.
 */
import { describe, expect, it } from 'vitest';
import { EntityLedger, type NewEvent } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { user } from '../../../lambdas/entities/user';
import type { UserOp } from '../../../lambdas/entities/user/model';
import { clientAgainstTestSimulator } from '../core/client-fixtures';

const LOGIN = 'ada@example.com';
const ADA = { firstName: 'Ada', lastName: 'L', userTemplateName: 'Agent' };

/** The n-th event of the user: versions sort as `n` does. */
const userEvent = (n: number, op: UserOp): NewEvent => {
  const action = op.kind === 'join' ? 'add-user' : 'delete-user';
  const v = String(n).padStart(3, '0');
  return { key: `${action}@${v}`, v, action, op };
};

const join = (n: number) => userEvent(n, { kind: 'join', user: ADA });
const leave = (n: number) => userEvent(n, { kind: 'leave' });

describe('the ledger on a user someone else made', () => {
  const { sim, platform } = clientAgainstTestSimulator({}, { maxAttempts: 1 });

  const ledgerFor = () => {
    const ledger = new EntityLedger({ store: new InMemoryLedgerStore(), sleep: async () => {} });
    const apply = (event: NewEvent) =>
      ledger.apply(user, {
        id: { loginUserId: LOGIN },
        event,
        platform,
        call: { deadline: Date.now() + 30_000 },
        deadline: Date.now() + 30_000,
      });
    return { apply };
  };

  it('applies a redriven join once the operator removed the other user', async () => {
    // Prepare: the ledger made and removed the user; someone then made one with the same login,
    // so the next join was refused on the platform (not foreseen by the replay).
    const { apply } = ledgerFor();
    await apply(join(1));
    await apply(leave(2));
    sim.state.addUser({ loginUserId: LOGIN, ...ADA, firstName: 'Someone' });
    const refused = await apply(join(3));
    sim.state.deleteUser(LOGIN);

    // Act: the operator redrives the dead letter.
    const redriven = await apply(join(3));

    // Assess
    expect(refused.code).toBe('USER_EXISTS_NOT_OURS');
    expect(redriven).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findUser(LOGIN)?.firstName).toBe('Ada');
  });

  it('refuses the redrive again while the other user is still there', async () => {
    // Prepare
    const { apply } = ledgerFor();
    await apply(join(1));
    await apply(leave(2));
    sim.state.addUser({ loginUserId: LOGIN, ...ADA, firstName: 'Someone' });
    await apply(join(3));

    // Act
    const redriven = await apply(join(3));

    // Assess
    expect(redriven).toMatchObject({ category: 'permanent', code: 'USER_EXISTS_NOT_OURS' });
    expect(sim.state.findUser(LOGIN)?.firstName).toBe('Someone');
  });
});
