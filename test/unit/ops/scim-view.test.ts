import { describe, expect, it } from 'vitest';
import { describeScimItem } from '../../../ops/scim-view';

const item = {
  schema: 1,
  id: 'Z3JhY2VAZXhhbXBsZS5jb20.0123456789abcdef',
  user: {
    userName: 'grace@example.com',
    fields: { firstName: 'Grace', lastName: 'Hopper', userTemplateName: 'Agent' },
    active: false,
  },
  created: '2026-11-28T09:00:00.000Z',
  lastModified: '2026-11-28T10:00:00.000Z',
};

describe('what ops trace shows of a SCIM item', () => {
  it('is nothing for a user that never came through SCIM', () => {
    // Assess
    expect(describeScimItem(undefined)).toEqual([]);
  });

  it('shows the resource id, what the IdP asked last, and a held delete, without names', () => {
    // Act
    const lines = describeScimItem({
      ...item,
      heldDeleteUntil: Date.parse('2026-11-28T11:00:00Z'),
    });

    // Assess
    expect(lines).toEqual([
      'SCIM',
      `  resource id        ${item.id}`,
      '  the IdP asked      deactivated (2026-11-28T10:00:00.000Z; created 2026-11-28T09:00:00.000Z)',
      expect.stringMatching(/held delete .*until 2026-11-28T11:00:00\.000Z$/),
    ]);
    expect(lines.join('\n')).not.toMatch(/Grace|Hopper/);
  });

  it('says when the item cannot be read', () => {
    // Assess
    expect(describeScimItem({ schema: 9 }).join('\n')).toContain('cannot read');
  });
});
