import { describe, expect, it } from 'vitest';
import { MAX_EPOCH_MILLIS } from '../../../lambdas/messages/rules';
import { accepted, addOrUpdateWithItem, rejected, validMessage, without } from './message-fixtures';

const ACTION = 'add-or-update-campaign-record';

describe('add-or-update-campaign-record message', () => {
  it('accepts a valid message unchanged', () => {
    // Prepare
    const message = validMessage(ACTION);

    // Act
    const parsed = accepted(ACTION, message);

    // Assess
    expect(parsed).toEqual(message);
  });

  describe('clientId', () => {
    it('is required', () => {
      // Prepare
      const message = without(validMessage(ACTION), 'clientId');

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe('clientId: is required');
    });

    it('must not be empty', () => {
      // Prepare
      const message = { ...validMessage(ACTION), clientId: '' };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe('clientId: must not be empty');
    });

    it('must be a string, not a number', () => {
      // Prepare
      const message = { ...validMessage(ACTION), clientId: 1001 };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toMatch(/^clientId: .*expected string, received number$/);
    });
  });

  describe('previewRecordData', () => {
    it('is required', () => {
      // Prepare
      const message = without(validMessage(ACTION), 'previewRecordData');

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe('previewRecordData: is required');
    });

    it('must hold at least one item', () => {
      // Prepare
      const message = { ...validMessage(ACTION), previewRecordData: [] };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe('previewRecordData: must hold at least one data item');
    });

    it.each([
      ['key', { value: 'x' }],
      ['value', { key: 'Note' }],
    ])('requires %s in every item', (field, item) => {
      // Prepare
      const message = addOrUpdateWithItem(item);

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(`previewRecordData[1].${field}: is required`);
    });

    it('rejects an empty key', () => {
      // Prepare
      const message = addOrUpdateWithItem({ key: '', value: 'x' });

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe('previewRecordData[1].key: must not be empty');
    });

    it('accepts an empty value for an ordinary key', () => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'Note', value: '' });

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.previewRecordData[1]).toEqual({ key: 'Note', value: '' });
    });

    it('rejects an unknown field in an item by name', () => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'Note', value: 'x', label: 'Note' });

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe('previewRecordData[1]: unknown field(s) "label"');
    });

    it('rejects duplicate keys', () => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'Name', value: 'Second name' });

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe('previewRecordData[1].key: duplicate data key "Name"');
    });
  });

  describe('displayOrder', () => {
    it.each([1, 2, 2_147_483_647])('accepts %s', (displayOrder) => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'Note', value: 'x', displayOrder });

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.previewRecordData[1]?.displayOrder).toBe(displayOrder);
    });

    it('is optional', () => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'Note', value: 'x' });

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.previewRecordData[1]?.displayOrder).toBeUndefined();
    });

    it.each([
      [0, 'must be greater than zero'],
      [-1, 'must be greater than zero'],
      [1.5, 'must be an integer'],
      ['1', 'must be an integer'],
    ])('rejects %j', (displayOrder, reason) => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'Note', value: 'x', displayOrder });

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(`previewRecordData[1].displayOrder: ${reason}`);
    });
  });

  describe('keys containing "phone" (any case)', () => {
    it.each(['mobilePhone', 'PHONE', 'homephone_2', 'Phone'])('accept E.164 under %s', (key) => {
      // Prepare
      const message = addOrUpdateWithItem({ key, value: '+14155550100' });

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.previewRecordData[1]).toEqual({ key, value: '+14155550100' });
    });

    it.each(['mobilePhone', 'PHONE', 'homephone_2'])('reject a non-E.164 value under %s', (key) => {
      // Prepare
      const message = addOrUpdateWithItem({ key, value: '555-1234' });

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(
        `previewRecordData[1].value: key "${key}" is a phone field and must hold a clean E.164 number such as +14155550100`,
      );
    });

    it.each(['555-1234', '0049301234', '+0123', '', '+1 415 555 0100', '+1234567890123456'])(
      'reject %j',
      (value) => {
        // Prepare
        const message = addOrUpdateWithItem({ key: 'mobilePhone', value });

        // Act
        const error = rejected(ACTION, message);

        // Assess
        expect(error).toMatch(/^previewRecordData\[1\]\.value: key "mobilePhone" is a phone field/);
      },
    );

    it('never echo the rejected number (personal data) in the error', () => {
      // Prepare
      const value = '+49 (0)30 1234-5678';
      const message = addOrUpdateWithItem({ key: 'mobilePhone', value });

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toContain('previewRecordData[1].value');
      expect(error).not.toContain(value);
      expect(error).not.toContain('1234-5678');
    });

    it('leave other keys free text', () => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'Note', value: '555-1234' });

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.previewRecordData[1]?.value).toBe('555-1234');
    });
  });

  describe('keys ending in exactly _link / _button', () => {
    it.each([
      ['Profile_link', 'https://crm.example.com/leads/1001?tab=history'],
      ['Open_button', 'http://crm.example.com:8080/open'],
    ])('accept an absolute http(s) URL under %s', (key, value) => {
      // Prepare
      const message = addOrUpdateWithItem({ key, value });

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.previewRecordData[1]).toEqual({ key, value });
    });

    it.each([
      ['Profile_link', 'javascript:alert(1)'],
      ['Profile_link', '/relative'],
      ['Profile_link', 'ftp://x'],
      ['Profile_link', ''],
      ['Profile_link', ' https://crm.example.com/leads/1001'],
      ['Open_button', 'javascript:alert(1)'],
      ['Open_button', 'crm.example.com/open'],
    ])('reject under %s the value %j', (key, value) => {
      // Prepare
      const message = addOrUpdateWithItem({ key, value });

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(
        `previewRecordData[1].value: key "${key}" must hold an absolute http(s) URL such as https://example.com/page`,
      );
      if (value !== '') expect(error).not.toContain(value);
    });

    it.each(['Foo_Link', 'Foo_BUTTON', 'link', 'Foo_link_text'])(
      'do not include %s (the suffix is case-sensitive and must end the key)',
      (key) => {
        // Prepare
        const message = addOrUpdateWithItem({ key, value: 'not a url' });

        // Act
        const parsed = accepted(ACTION, message);

        // Assess
        expect(parsed.previewRecordData[1]).toEqual({ key, value: 'not a url' });
      },
    );
  });

  describe('ItemTimeZone', () => {
    it.each(['Europe/Berlin', 'UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT+1'])(
      'accepts the IANA name %s',
      (value) => {
        // Prepare
        const message = addOrUpdateWithItem({ key: 'ItemTimeZone', value });

        // Act
        const parsed = accepted(ACTION, message);

        // Assess
        expect(parsed.previewRecordData[1]).toEqual({ key: 'ItemTimeZone', value });
      },
    );

    it.each(['+01:00', 'Mars/Olympus', 'CET ', 'europe/berlin', ''])('rejects %j', (value) => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'ItemTimeZone', value });

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(
        'previewRecordData[1].value: key "ItemTimeZone" must hold an IANA time zone name such as Europe/Berlin',
      );
    });
  });

  describe('SkillQueue', () => {
    it('accepts a queue name', () => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'SkillQueue', value: 'Sales' });

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.previewRecordData[1]).toEqual({ key: 'SkillQueue', value: 'Sales' });
    });

    it.each(['', '   '])('rejects the blank value %j', (value) => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'SkillQueue', value });

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(
        `previewRecordData[1].value: key "SkillQueue" must name a skill queue (leave the item out for the campaign's default)`,
      );
    });
  });

  describe('clientIdFieldName', () => {
    it('reserves the default data key "Id"', () => {
      // Prepare
      const message = addOrUpdateWithItem({ key: 'Id', value: 'CRM-1001' });

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toMatch(/^previewRecordData\[1\]\.key: data key "Id" is reserved: /);
    });

    it('reserves a custom clientIdFieldName instead of "Id"', () => {
      // Prepare
      const message = {
        ...validMessage(ACTION),
        clientIdFieldName: 'CustomerNo',
        previewRecordData: [
          { key: 'Id', value: 'internal-7' },
          { key: 'CustomerNo', value: 'CRM-1001' },
        ],
      };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toMatch(/^previewRecordData\[1\]\.key: data key "CustomerNo" is reserved: /);
      expect(error).not.toContain('previewRecordData[0]');
    });

    it('allows "Id" as a data key when another clientIdFieldName is in effect', () => {
      // Prepare
      const message = {
        ...validMessage(ACTION),
        clientIdFieldName: 'CustomerNo',
        previewRecordData: [{ key: 'Id', value: 'internal-7' }],
      };

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.clientIdFieldName).toBe('CustomerNo');
      expect(parsed.previewRecordData).toEqual([{ key: 'Id', value: 'internal-7' }]);
    });

    it('must not be empty', () => {
      // Prepare
      const message = { ...validMessage(ACTION), clientIdFieldName: '' };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe('clientIdFieldName: must not be empty');
    });
  });

  describe('nextEarliestWorkTimeUTC', () => {
    it.each([0, 1_767_225_600_000, MAX_EPOCH_MILLIS])('accepts %s', (time) => {
      // Prepare
      const message = { ...validMessage(ACTION), nextEarliestWorkTimeUTC: time };

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed.nextEarliestWorkTimeUTC).toBe(time);
    });

    it.each([
      [-1, 'must not be before 1970-01-01'],
      [MAX_EPOCH_MILLIS + 1, 'must not be after 9999-12-31'],
      [1_767_225_600_000.5, 'must be an integer number of milliseconds since 1970-01-01 UTC'],
      ['1767225600000', 'must be an integer number of milliseconds since 1970-01-01 UTC'],
    ])('rejects %j', (time, reason) => {
      // Prepare
      const message = { ...validMessage(ACTION), nextEarliestWorkTimeUTC: time };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(`nextEarliestWorkTimeUTC: ${reason}`);
    });
  });

  describe('reporting', () => {
    it('reports a missing clientId and a bad phone number together', () => {
      // Prepare
      const message = without(
        addOrUpdateWithItem({ key: 'mobilePhone', value: '555-1234' }),
        'clientId',
      );

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error.split('; ')).toEqual([
        'clientId: is required',
        'previewRecordData[1].value: key "mobilePhone" is a phone field and must hold a clean E.164 number such as +14155550100',
      ]);
    });

    it('reports item rules and cross-item rules next to other item issues', () => {
      // Prepare
      const message = {
        ...validMessage(ACTION),
        platform: 'PLAT',
        previewRecordData: [
          { key: 'Profile_link', value: '/relative', displayOrder: 0 },
          { key: 'Id', value: 'CRM-1001' },
        ],
      };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error.split('; ').sort()).toEqual(
        [
          'previewRecordData[0].displayOrder: must be greater than zero',
          'previewRecordData[0].value: key "Profile_link" must hold an absolute http(s) URL such as https://example.com/page',
          'unknown field(s) "platform"',
          'previewRecordData[1].key: data key "Id" is reserved: it equals clientIdFieldName, under which the platform stores clientId (send the id as clientId instead)',
        ].sort(),
      );
    });

    it.each(['platform', 'companyCode', 'environment'])(
      'rejects %s (it comes from deployment config) by name',
      (field) => {
        // Prepare
        const message = { ...validMessage(ACTION), [field]: 'X' };

        // Act
        const error = rejected(ACTION, message);

        // Assess
        expect(error).toBe(`unknown field(s) "${field}"`);
      },
    );
  });
});
