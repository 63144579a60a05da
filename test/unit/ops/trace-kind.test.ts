import { describe, expect, it } from 'vitest';
import { ACTION_NAMES, type ActionName } from '../../../lambdas/actions';
import type { EntityKindName } from '../../../lambdas/core/pipeline/action';
import { traceKindOf } from '../../../ops/trace';

/** The entity `ops trace <action> <id>` shows, by action: a write's ordering entity, a read's kind. */
const EXPECTED: Record<ActionName, EntityKindName> = {
  'add-or-update-campaign-record': 'record-family',
  'change-campaign-record-status': 'record-family',
  'transfer-campaign-record': 'record-family',
  'delete-campaign-record': 'record-family',
  'search-campaign-records': 'record-family',
  'add-user': 'user',
  'delete-user': 'user',
  'query-user-existence': 'user',
};

describe('the entity ops trace shows for an action', () => {
  it.each(ACTION_NAMES)('%s', (action) => {
    // Act
    const kind = traceKindOf(action);

    // Assess
    expect(kind).toBe(EXPECTED[action]);
  });
});
