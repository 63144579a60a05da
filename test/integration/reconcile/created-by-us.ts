import { LedgerTable } from '../../../lambdas/core/aws/ledger-table';
import { userKey } from '../../../lambdas/core/ledger/entity-key';
import { eventVersion } from '../../../lambdas/core/ledger/event-version';
import { ENTITY_KINDS } from '../../../lambdas/entities';
import type { RunningSimulator } from '../../../local/simulator';
import type { AddUserInput } from '../../../local/simulator/state';
import { motoLedgerClient } from '../../support/ledger-table';

/**
 * Users on the platform that the ledger in `tableName` shows this integration created (by live
 * events): the reconciliation tests' drift of users that are ours to delete.
 */
export const createdByUs = async (
  where: { readonly tableName: string; readonly simulator: RunningSimulator },
  user: (login: string) => AddUserInput,
  logins: readonly string[],
): Promise<void> => {
  const table = new LedgerTable({ tableName: where.tableName, client: motoLedgerClient() });
  const v = eventVersion(Date.parse('2026-11-20T08:00:00.000Z'), 'add', 'c'.repeat(16));
  for (const login of logins) {
    where.simulator.state.addUser(user(login));
    const doc = {
      schema: ENTITY_KINDS.user.parts.schema,
      kind: 'user',
      id: { loginUserId: login },
      events: [],
      known: {
        place: { user: { origin: 'ours', born: v, at: v } },
        base: { stage: 'written-unseen' },
      },
    };
    await table.put({ pk: { S: userKey(login) }, doc: { S: JSON.stringify(doc) } }, {});
  }
};
