import { describe, expect, it } from 'vitest';
import { ACTION_NAMES, MESSAGE_SCHEMAS, parseMessage } from '../../../lambdas/actions';
import { PLATFORM_REGIONS } from '../../../lambdas/core/platform/regions';
import { formatIssues } from '../../../lambdas/messages/parse';
import { MAX_EPOCH_MILLIS } from '../../../lambdas/messages/rules';
import {
  accepted,
  itAccepts,
  itRefuses,
  PROVISIONING_ACTIONS,
  REALTIME_ACTIONS,
  rejected,
  validMessage,
  without,
} from './message-fixtures';

const LOCATOR_ERROR =
  'clientId: either previewRecordId or clientId is required to locate the record';

const TIME_ZONE_ERROR = 'timeZone: must be an IANA time zone name such as Europe/Berlin';

const NOT_EPOCH_MILLIS = 'must be an integer number of milliseconds since 1970-01-01 UTC';

describe('message contracts shared by every action', () => {
  it('has exactly one schema per action', () => {
    // Prepare
    const actions = [...ACTION_NAMES].sort();

    // Act
    const withSchema = Object.keys(MESSAGE_SCHEMAS).sort();

    // Assess
    expect(withSchema).toEqual(actions);
  });

  describe.each(REALTIME_ACTIONS)('%s', (action) => {
    it.each(PLATFORM_REGIONS)('accepts the region %s', (region) => {
      // Prepare
      const message = { ...validMessage(action), region };

      // Act
      const parsed = accepted(action, message);

      // Assess
      expect(parsed.region).toBe(region);
    });

    it.each(['eu-west-1', 'US-EAST-1', ''])('rejects the region %j', (region) => {
      // Prepare
      const message = { ...validMessage(action), region };

      // Act
      const error = rejected(action, message);

      // Assess
      expect(error).toBe(`region: must be one of ${PLATFORM_REGIONS.join(', ')}`);
    });

    it('leaves region optional (the deployment default applies)', () => {
      // Prepare
      const message = validMessage(action);

      // Act
      const parsed = accepted(action, message);

      // Assess
      expect(parsed.region).toBeUndefined();
    });

    it('requires campaignName', () => {
      // Prepare
      const message = without(validMessage(action), 'campaignName');

      // Act
      const error = rejected(action, message);

      // Assess
      expect(error.split('; ')).toContain('campaignName: is required');
    });
  });

  describe.each([...REALTIME_ACTIONS, ...PROVISIONING_ACTIONS])('%s', (action) => {
    it('accepts an optional correlationId', () => {
      // Prepare
      const message = { ...validMessage(action), correlationId: 'crm-evt-0001' };

      // Act
      const parsed = accepted(action, message);

      // Assess
      expect(parsed.correlationId).toBe('crm-evt-0001');
    });

    it('rejects an empty correlationId', () => {
      // Prepare
      const message = { ...validMessage(action), correlationId: '' };

      // Act
      const error = rejected(action, message);

      // Assess
      expect(error).toBe('correlationId: must not be empty');
    });

    it('rejects unknown fields by name', () => {
      // Prepare
      const message = { ...validMessage(action), extra: 1, Campaign: 'x' };

      // Act
      const error = rejected(action, message);

      // Assess
      expect(error).toBe('unknown field(s) "extra", "Campaign"');
    });

    it.each(['a string', 42, null, [], undefined])('rejects the body %j', (body) => {
      // Prepare
      const input: unknown = body;

      // Act
      const error = rejected(action, input);

      // Assess
      expect(error).toMatch(/^\(message\): /);
    });

    it('rejects __proto__ and constructor keys from JSON.parse without polluting prototypes', () => {
      // Prepare
      const body = JSON.stringify(validMessage(action)).replace(
        /^\{/,
        '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},',
      );
      const input: unknown = JSON.parse(body);

      // Act
      const result = parseMessage(action, input);

      // Assess
      expect(result).toEqual({
        success: false,
        error: 'unknown field(s) "__proto__", "constructor"',
      });
      expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe.each([
    'change-campaign-record-status',
    'transfer-campaign-record',
    'delete-campaign-record',
  ] as const)('%s record locator', (action) => {
    itAccepts(action, [
      ['accepts a valid message unchanged', validMessage(action)],
      [
        'locates the record by previewRecordId alone',
        { ...without(validMessage(action), 'clientId'), previewRecordId: 'PR-77' },
      ],
      [
        'locates the record by clientId alone',
        { ...without(validMessage(action), 'clientId'), clientId: 'CRM-1001' },
      ],
    ]);

    itRefuses(action, [
      [
        'needs previewRecordId or clientId',
        without(validMessage(action), 'clientId'),
        LOCATOR_ERROR,
      ],
    ]);

    it('reports a missing locator together with an unknown field', () => {
      // Prepare
      const message = { ...without(validMessage(action), 'clientId'), recordId: 'PR-77' };

      // Act
      const error = rejected(action, message);

      // Assess
      expect(error.split('; ')).toEqual(['unknown field(s) "recordId"', LOCATOR_ERROR]);
    });
  });

  describe.each(['change-campaign-record-status', 'transfer-campaign-record'] as const)(
    '%s timeZone',
    (action) => {
      itAccepts(
        action,
        ['Europe/Berlin', 'UTC', 'America/Argentina/Buenos_Aires'].map(
          (timeZone) => [`accepts ${timeZone}`, { ...validMessage(action), timeZone }] as const,
        ),
      );

      itRefuses(
        action,
        ['+01:00', 'Mars/Olympus', 'CET ', 'utc'].map((timeZone) => [
          `rejects ${JSON.stringify(timeZone)}`,
          { ...validMessage(action), timeZone },
          TIME_ZONE_ERROR,
        ]),
      );
    },
  );

  describe.each([
    'add-or-update-campaign-record',
    'change-campaign-record-status',
    'transfer-campaign-record',
  ] as const)('%s nextEarliestWorkTimeUTC', (action) => {
    itRefuses(
      action,
      (
        [
          [-1, 'must not be before 1970-01-01'],
          [MAX_EPOCH_MILLIS + 1, 'must not be after 9999-12-31'],
          [0.5, NOT_EPOCH_MILLIS],
          [1.25, NOT_EPOCH_MILLIS],
          [1_767_225_600_000.5, NOT_EPOCH_MILLIS],
          ['1767225600000', NOT_EPOCH_MILLIS],
        ] as const
      ).map(([time, reason]) => [
        `rejects ${JSON.stringify(time)}`,
        { ...validMessage(action), nextEarliestWorkTimeUTC: time },
        `nextEarliestWorkTimeUTC: ${reason}`,
      ]),
    );
  });

  it('rejects __proto__ inside a data item and keeps the parsed items plain', () => {
    // Prepare
    const input: unknown = JSON.parse(
      '{"campaignName":"c","clientId":"1","previewRecordData":[{"key":"Name","value":"A","__proto__":{"polluted":"yes"}}]}',
    );
    const plain: unknown = JSON.parse(
      '{"campaignName":"c","clientId":"1","previewRecordData":[{"key":"__proto__","value":"A"}]}',
    );

    // Act
    const error = rejected('add-or-update-campaign-record', input);
    const parsed = accepted('add-or-update-campaign-record', plain);

    // Assess
    expect(error).toBe('previewRecordData[0]: unknown field(s) "__proto__"');
    expect(parsed.previewRecordData[0]?.key).toBe('__proto__');
    expect(Object.getPrototypeOf(parsed.previewRecordData[0])).toBe(Object.prototype);
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
  });

  it.each([
    ['add-or-update-campaign-record', 'nextEarliestWorkTimeUTC', '1767225600000'],
    ['search-campaign-records', 'maxRecords', '10'],
    ['change-campaign-record-status', 'nextEarliestWorkTimeUTC', '1767225600000'],
    ['transfer-campaign-record', 'nextEarliestWorkTimeUTC', '1767225600000'],
  ] as const)('%s rejects %s given as a string', (action, field, value) => {
    // Prepare
    const message = { ...validMessage(action), [field]: value };

    // Act
    const error = rejected(action, message);

    // Assess
    expect(error).toMatch(new RegExp(`^${field}: must be an integer`));
  });

  describe('formatIssues', () => {
    it('names nested fields with index notation and calls a missing field required', () => {
      // Prepare
      const schema = MESSAGE_SCHEMAS['add-or-update-campaign-record'];
      const input = { campaignName: 'c', previewRecordData: [{ key: 'Name', value: 'A' }, {}] };
      const { error } = schema.safeParse(input, { reportInput: true });

      // Act
      const text = formatIssues(error?.issues ?? []);

      // Assess
      expect(text.split('; ')).toEqual([
        'clientId: is required',
        'previewRecordData[1].key: is required',
        'previewRecordData[1].value: is required',
      ]);
    });

    it('does not call a wrongly typed field missing when issues carry no input', () => {
      // Prepare
      const schema = MESSAGE_SCHEMAS['delete-user'];
      const { error } = schema.safeParse({ loginUserId: 42 });

      // Act
      const text = formatIssues(error?.issues ?? []);

      // Assess
      expect(text).toMatch(/^loginUserId: .*expected string, received number$/);
    });
  });
});
