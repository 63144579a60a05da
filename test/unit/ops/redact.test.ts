import { describe, expect, it } from 'vitest';
import { MASK, PREVIEW_LENGTH, redactedPreview } from '../../../ops/redact';

describe('redactedPreview', () => {
  it('masks personal string values and keeps field names, ids and routing values', () => {
    // Prepare
    const body = JSON.stringify({
      correlationId: 'c-1',
      campaignName: 'Renewals',
      clientId: 'crm-42',
      previewRecordData: [{ key: 'phone1', value: '+14155550100', displayOrder: 1 }],
      ttl: 1_700_000,
    });

    // Act
    const preview = redactedPreview(body);

    // Assess
    expect(JSON.parse(preview)).toEqual({
      correlationId: 'c-1',
      campaignName: 'Renewals',
      clientId: MASK,
      previewRecordData: [{ key: 'phone1', value: MASK, displayOrder: 1 }],
      ttl: 1_700_000,
    });
  });

  it('masks the detail of an EventBridge event but shows its routing fields', () => {
    // Prepare
    const body = JSON.stringify({
      id: 'e-1',
      source: 'com.examplecorp.hr',
      'detail-type': 'add-user',
      detail: { loginUserId: 'ada@example.com', firstName: 'Ada' },
    });

    // Act
    const preview = redactedPreview(body);

    // Assess
    expect(preview).not.toContain('ada@example.com');
    expect(preview).not.toContain('Ada');
    expect(JSON.parse(preview)).toMatchObject({
      source: 'com.examplecorp.hr',
      'detail-type': 'add-user',
    });
  });

  it('cuts a long preview and never shows a body that is not JSON', () => {
    // Prepare
    const long = JSON.stringify({
      previewRecordData: Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: 'v' })),
    });

    // Act
    const cut = redactedPreview(long);
    const raw = redactedPreview('Ada Lovelace, +14155550100');
    const tiny = redactedPreview('A');

    // Assess
    expect(Array.from(cut)).toHaveLength(PREVIEW_LENGTH);
    expect(cut.endsWith('…')).toBe(true);
    expect(raw).toBe('(not JSON, 26 bytes)');
    expect(tiny).toBe('(not JSON, 1 byte)');
  });
});
