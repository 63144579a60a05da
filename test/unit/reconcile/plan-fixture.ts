import type { Plan, PlanEntry } from '../../../lambdas/reconcile/plan';

/** usersPlan's export time: a repair's occurredAt must be it. */
export const EXPORTED_AT = '2026-11-25T06:00:00.000Z';

/** The repair that adds user a@example.com, as a users plan carries it. */
export const ADD_USER_REPAIR: NonNullable<PlanEntry['repair']> = {
  action: 'add-user',
  message: {
    loginUserId: 'a@example.com',
    firstName: 'A',
    lastName: 'B',
    userTemplateName: 'T',
    occurredAt: EXPORTED_AT,
  },
};

/** A users plan `p1` of scope `s`, over an export of `rowCount` rows, with `rest`. */
export const usersPlan = (
  rowCount: number,
  rest: Omit<Plan, 'version' | 'planId' | 'createdAt' | 'scope' | 'kind' | 'snapshot'>,
): Plan => ({
  version: 1,
  planId: 'p1',
  createdAt: '2026-11-25T08:00:00.000Z',
  scope: 's',
  kind: 'users',
  snapshot: {
    id: 'abc',
    file: 'f.csv',
    exportedAt: EXPORTED_AT,
    rowCount,
    sha256: 'a'.repeat(64),
  },
  ...rest,
});
