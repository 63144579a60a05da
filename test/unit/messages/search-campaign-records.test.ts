import { describe, expect, it } from 'vitest';
import { SEARCH_CONDITIONS, SYSTEM_SEARCH_KEYS } from '../../../lambdas/actions';
import { accepted, rejected, validMessage, without } from './message-fixtures';

const ACTION = 'search-campaign-records';

const byCriteria = (criteria: unknown): Record<string, unknown> => ({
  ...validMessage(ACTION),
  previewRecordData: criteria,
});

describe('search-campaign-records message', () => {
  describe('search by criteria', () => {
    it.each(SEARCH_CONDITIONS)('accepts the condition %s', (condition) => {
      // Prepare
      const message = byCriteria([{ key: 'Region', value: 'North', condition }]);

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.previewRecordData).toEqual([{ key: 'Region', value: 'North', condition }]);
    });

    it.each(SYSTEM_SEARCH_KEYS)('accepts the system key %s', (key) => {
      // Prepare
      const message = byCriteria([{ key, value: '1', condition: 'GREATERTHAN' }]);

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.previewRecordData?.[0]?.key).toBe(key);
    });

    it.each(['sys_state', 'sys_skillqueue', 'sys_'])('rejects the unknown system key %j', (key) => {
      // Prepare
      const message = byCriteria([{ key, value: 'x', condition: 'EQUALS' }]);

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(
        `previewRecordData[0].key: a sys_* key must be one of ${SYSTEM_SEARCH_KEYS.join(', ')}`,
      );
    });

    it.each(['LIKE', 'equals', ''])('rejects the condition %j', (condition) => {
      // Prepare
      const message = byCriteria([
        { key: 'Region', value: 'North', condition: 'EQUALS' },
        { key: 'Tier', value: 'Gold', condition },
      ]);

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(
        'previewRecordData[1].condition: must be one of EQUALS, NOTEQUALS, GREATERTHAN, LESSTHAN, CONTAINS, BEGINSWITH',
      );
    });

    it('requires a condition in every criterion', () => {
      // Prepare
      const message = byCriteria([{ key: 'Region', value: 'North' }]);

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toMatch(/^previewRecordData\[0\]\.condition: must be one of EQUALS, /);
    });

    it.each(['key', 'value'])('requires %s in every criterion', (field) => {
      // Prepare
      const criterion = { key: 'Region', value: 'North', condition: 'EQUALS' };
      const message = byCriteria([without(criterion, field)]);

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(`previewRecordData[0].${field}: is required`);
    });

    it('needs at least one criterion when no id is given', () => {
      // Prepare
      const message = without(validMessage(ACTION), 'previewRecordData');

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(
        'previewRecordData: a search needs previewRecordId, clientId, or at least one criterion {key, value, condition}',
      );
    });

    it('rejects an empty criteria list when no id is given', () => {
      // Prepare
      const message = byCriteria([]);

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toMatch(/^previewRecordData: a search needs previewRecordId, clientId, or /);
    });
  });

  describe('search by id', () => {
    it.each([
      ['previewRecordId', 'PR-77'],
      ['clientId', 'CRM-1001'],
    ])('needs no criteria with %s', (field, id) => {
      // Prepare
      const message = { campaignName: 'Spring-Leads', [field]: id };

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed).toEqual(message);
    });
  });

  describe('maxRecords', () => {
    it.each([1, 1000])('accepts %s', (maxRecords) => {
      // Prepare
      const message = { ...validMessage(ACTION), maxRecords };

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.maxRecords).toBe(maxRecords);
    });

    it.each([
      [0, 'must be at least 1'],
      [1001, 'must be at most 1000'],
      [2.5, 'must be an integer'],
      ['10', 'must be an integer'],
    ])('rejects %j', (maxRecords, reason) => {
      // Prepare
      const message = { ...validMessage(ACTION), maxRecords };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(`maxRecords: ${reason}`);
    });
  });

  it('reports a missing criterion together with other problems', () => {
    // Prepare
    const message = { campaignName: '', maxRecords: 0 };

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error.split('; ')).toEqual([
      'campaignName: must not be empty',
      'maxRecords: must be at least 1',
      'previewRecordData: a search needs previewRecordId, clientId, or at least one criterion {key, value, condition}',
    ]);
  });
});
