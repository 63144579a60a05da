import { describe, expect, it } from 'vitest';
import { LEDGER_SCHEMA_VERSION } from '../../../lambdas/core/ledger/ledger-doc';
import { ENTITY_KINDS } from '../../../lambdas/entities';
import { describeLedgerItem } from '../../../ops/ledger-view';

describe('what ops trace shows of a ledger item', () => {
  it('names what is wrong with an item that does not parse, and what to do, instead of failing', () => {
    // Prepare: the item LEDGER_ITEM_INVALID dead letters point the operator at.
    const raw = {
      schema: LEDGER_SCHEMA_VERSION,
      kind: 'user',
      id: { loginUserId: 'ada@example.com' },
      events: 'not a list',
      known: {},
    };

    // Act
    const lines = describeLedgerItem(ENTITY_KINDS.user, raw);

    // Assess
    expect(lines.join('\n')).toContain('does not parse (item.events');
    expect(lines.join('\n')).toContain('LEDGER_ITEM_INVALID');
    expect(lines.join('\n')).toContain('delete the item under the ledger key above');
  });

  it.each([
    ['no item', undefined, 'no ledger entry'],
    ['an item of an older ledger version', { schema: 1 }, 'an entry of an older ledger version'],
  ])('says so for %s', (_name, raw, expected) => {
    // Act
    const lines = describeLedgerItem(ENTITY_KINDS.user, raw);

    // Assess
    expect(lines.join('\n')).toContain(expected);
  });
});
