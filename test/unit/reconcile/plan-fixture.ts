import type { Plan } from '../../../lambdas/reconcile/plan';

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
    exportedAt: '2026-11-25T06:00:00.000Z',
    rowCount,
    sha256: 'a'.repeat(64),
  },
  ...rest,
});
