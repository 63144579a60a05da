import { describe, expect, it } from 'vitest';
import { accepted, rejected, validMessage, without } from './message-fixtures';

const LOCATOR_ERROR =
  'clientId: either previewRecordId or clientId is required to locate the record';

describe.each(['transfer-campaign-record', 'delete-campaign-record'] as const)(
  '%s message',
  (action) => {
    it('accepts a valid message unchanged', () => {
      // Prepare
      const message = validMessage(action);

      // Act
      const parsed = accepted(action, message);

      // Assess
      expect(parsed).toEqual(message);
    });

    it.each([
      ['previewRecordId', 'PR-77'],
      ['clientId', 'CRM-1001'],
    ])('locates the record by %s alone', (field, id) => {
      // Prepare
      const message = { ...without(validMessage(action), 'clientId'), [field]: id };

      // Act
      const parsed = accepted(action, message);

      // Assess
      expect(parsed).toMatchObject({ [field]: id });
    });

    it('needs previewRecordId or clientId', () => {
      // Prepare
      const message = without(validMessage(action), 'clientId');

      // Act
      const error = rejected(action, message);

      // Assess
      expect(error).toBe(LOCATOR_ERROR);
    });

    it('reports a missing locator together with an unknown field', () => {
      // Prepare
      const message = { ...without(validMessage(action), 'clientId'), recordId: 'PR-77' };

      // Act
      const error = rejected(action, message);

      // Assess
      expect(error.split('; ')).toEqual(['unknown field(s) "recordId"', LOCATOR_ERROR]);
    });
  },
);

describe('transfer-campaign-record message', () => {
  const ACTION = 'transfer-campaign-record';

  it('requires transferToCampaign', () => {
    // Prepare
    const message = without(validMessage(ACTION), 'transferToCampaign');

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error).toBe('transferToCampaign: is required');
  });

  it('refuses a transfer into the campaign the record is already in', () => {
    // Prepare
    const message = {
      ...validMessage(ACTION),
      transferToCampaign: validMessage(ACTION).campaignName,
    };

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error).toBe(
      'transferToCampaign: must differ from campaignName (the record is already in that campaign)',
    );
  });

  it('treats campaign names as case-sensitive when comparing them', () => {
    // Prepare
    const source = String(validMessage(ACTION).campaignName);
    const message = { ...validMessage(ACTION), transferToCampaign: source.toUpperCase() };

    // Act
    const parsed = accepted(ACTION, message);

    // Assess
    expect(parsed).toMatchObject({ transferToCampaign: source.toUpperCase() });
  });

  it('accepts every optional field', () => {
    // Prepare
    const message = {
      ...validMessage(ACTION),
      skillQueue: 'Renewals-EN',
      preferredAgent: '',
      nextEarliestWorkTimeUTC: 1_767_225_600_000,
      timeZone: 'America/Argentina/Buenos_Aires',
    };

    // Act
    const parsed = accepted(ACTION, message);

    // Assess
    expect(parsed).toEqual(message);
  });

  it.each(['+01:00', 'Mars/Olympus', 'CET '])('rejects the timeZone %j', (timeZone) => {
    // Prepare
    const message = { ...validMessage(ACTION), timeZone };

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error).toBe('timeZone: must be an IANA time zone name such as Europe/Berlin');
  });

  it.each([
    [-1, 'must not be before 1970-01-01'],
    [1.25, 'must be an integer number of milliseconds since 1970-01-01 UTC'],
  ])('rejects nextEarliestWorkTimeUTC %j', (time, reason) => {
    // Prepare
    const message = { ...validMessage(ACTION), nextEarliestWorkTimeUTC: time };

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error).toBe(`nextEarliestWorkTimeUTC: ${reason}`);
  });
});
