import { describe, expect, it } from 'vitest';
import { RECORD_STATES } from '../../../lambdas/actions';
import { accepted, rejected, validMessage, without } from './message-fixtures';

const ACTION = 'change-campaign-record-status';

const LOCATOR_ERROR =
  'clientId: either previewRecordId or clientId is required to locate the record';

describe('change-campaign-record-status message', () => {
  it.each(RECORD_STATES)('accepts the state %s', (state) => {
    // Prepare
    const message = {
      ...validMessage(ACTION),
      previewRecordStateEnum: state,
      nextEarliestWorkTimeUTC: 1_767_225_600_000,
    };

    // Act
    const parsed = accepted(ACTION, message);

    // Assess
    expect(parsed).toEqual(message);
  });

  it.each(['DONE', 'worked', ''])('rejects the state %j', (state) => {
    // Prepare
    const message = { ...validMessage(ACTION), previewRecordStateEnum: state };

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error).toBe(
      'previewRecordStateEnum: must be one of NOTWORKED, WORKED, COMPLETED, REMOVED',
    );
  });

  describe('WORKED', () => {
    it('requires nextEarliestWorkTimeUTC', () => {
      // Prepare
      const message = { ...validMessage(ACTION), previewRecordStateEnum: 'WORKED' };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(
        'nextEarliestWorkTimeUTC: is required when previewRecordStateEnum is WORKED',
      );
    });

    it('is accepted with nextEarliestWorkTimeUTC', () => {
      // Prepare
      const message = {
        ...validMessage(ACTION),
        previewRecordStateEnum: 'WORKED',
        nextEarliestWorkTimeUTC: 1_767_225_600_000,
      };

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.nextEarliestWorkTimeUTC).toBe(1_767_225_600_000);
    });

    it.each(['NOTWORKED', 'COMPLETED', 'REMOVED'])(
      'is the only state that needs a time (%s does not)',
      (state) => {
        // Prepare
        const message = { ...validMessage(ACTION), previewRecordStateEnum: state };

        // Act
        const parsed = accepted(ACTION, message);

        // Assess
        expect(parsed.nextEarliestWorkTimeUTC).toBeUndefined();
      },
    );
  });

  describe('record locator', () => {
    it('needs previewRecordId or clientId', () => {
      // Prepare
      const message = without(validMessage(ACTION), 'clientId');

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(LOCATOR_ERROR);
    });

    it('accepts previewRecordId alone', () => {
      // Prepare
      const message = { ...without(validMessage(ACTION), 'clientId'), previewRecordId: 'PR-77' };

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.previewRecordId).toBe('PR-77');
    });
  });

  describe('timeZone', () => {
    it.each(['Europe/Berlin', 'UTC', 'America/Argentina/Buenos_Aires'])(
      'accepts %s',
      (timeZone) => {
        // Prepare
        const message = { ...validMessage(ACTION), timeZone };

        // Act
        const parsed = accepted(ACTION, message);

        // Assess
        expect(parsed.timeZone).toBe(timeZone);
      },
    );

    it.each(['+01:00', 'Mars/Olympus', 'CET ', 'utc'])('rejects %j', (timeZone) => {
      // Prepare
      const message = { ...validMessage(ACTION), timeZone };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe('timeZone: must be an IANA time zone name such as Europe/Berlin');
    });
  });

  it('accepts an empty preferredAgent, which clears the preference', () => {
    // Prepare
    const message = { ...validMessage(ACTION), preferredAgent: '' };

    // Act
    const parsed = accepted(ACTION, message);

    // Assess
    expect(parsed.preferredAgent).toBe('');
  });

  it.each([
    [-1, 'must not be before 1970-01-01'],
    [253_402_300_800_000, 'must not be after 9999-12-31'],
    [0.5, 'must be an integer number of milliseconds since 1970-01-01 UTC'],
    ['1767225600000', 'must be an integer number of milliseconds since 1970-01-01 UTC'],
  ])('rejects nextEarliestWorkTimeUTC %j', (time, reason) => {
    // Prepare
    const message = { ...validMessage(ACTION), nextEarliestWorkTimeUTC: time };

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error).toBe(`nextEarliestWorkTimeUTC: ${reason}`);
  });

  it('reports a missing locator, a missing WORKED time and a bad zone together', () => {
    // Prepare
    const message = {
      campaignName: 'Spring-Leads',
      previewRecordStateEnum: 'WORKED',
      timeZone: '+01:00',
    };

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error.split('; ')).toEqual([
      'timeZone: must be an IANA time zone name such as Europe/Berlin',
      LOCATOR_ERROR,
      'nextEarliestWorkTimeUTC: is required when previewRecordStateEnum is WORKED',
    ]);
  });
});
