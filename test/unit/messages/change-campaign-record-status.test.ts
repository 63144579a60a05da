import { describe, expect, it } from 'vitest';
import { WORKED_STATES } from '../../../lambdas/actions';
import { itAccepts, itRefuses, rejected, validMessage } from './message-fixtures';

const ACTION = 'change-campaign-record-status';

const LOCATOR_ERROR =
  'clientId: either previewRecordId or clientId is required to locate the record';

const WORKED_NEEDS_TIME =
  'nextEarliestWorkTimeUTC: is required when previewRecordStateEnum is WORKED';

/** The sample message moved to `state`, with the extra fields given. */
const inState = (state: string, extra: Record<string, unknown> = {}) => ({
  ...validMessage(ACTION),
  previewRecordStateEnum: state,
  ...extra,
});

describe('change-campaign-record-status message', () => {
  itAccepts(
    ACTION,
    WORKED_STATES.map(
      (state) =>
        [
          `accepts the state ${state}`,
          inState(state, { nextEarliestWorkTimeUTC: 1_767_225_600_000 }),
        ] as const,
    ),
  );

  itRefuses(
    ACTION,
    ['DONE', 'worked', ''].map((state) => [
      `rejects the state ${JSON.stringify(state)}`,
      inState(state),
      'previewRecordStateEnum: must be one of NOTWORKED, WORKED, COMPLETED, REMOVED',
    ]),
  );

  describe('WORKED', () => {
    itRefuses(ACTION, [['requires nextEarliestWorkTimeUTC', inState('WORKED'), WORKED_NEEDS_TIME]]);

    itAccepts(ACTION, [
      [
        'is accepted with nextEarliestWorkTimeUTC',
        inState('WORKED', { nextEarliestWorkTimeUTC: 1_767_225_600_000 }),
      ],
      ...['NOTWORKED', 'COMPLETED', 'REMOVED'].map(
        (state) =>
          [`is the only state that needs a time (${state} does not)`, inState(state)] as const,
      ),
    ]);
  });

  itAccepts(ACTION, [
    [
      'accepts an empty preferredAgent, which clears the preference',
      { ...validMessage(ACTION), preferredAgent: '' },
    ],
  ]);

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
      WORKED_NEEDS_TIME,
    ]);
  });
});
