import { describe, expect, it } from 'vitest';
import { MAX_EPOCH_MILLIS } from '../../../lambdas/messages/rules';
import {
  addOrUpdateWithItem,
  itAccepts,
  itRefuses,
  rejected,
  validMessage,
  without,
} from './message-fixtures';

const ACTION = 'add-or-update-campaign-record';

const PHONE_ERROR = (key: string) =>
  `previewRecordData[1].value: key "${key}" is a phone field and must hold a clean E.164 number such as +14155550100`;

/** The message with one more data item holding `value` under `key`. */
const withValue = (key: string, value: string) => addOrUpdateWithItem({ key, value });

describe('add-or-update-campaign-record message', () => {
  itAccepts(ACTION, [['accepts a valid message unchanged', validMessage(ACTION)]]);

  describe('clientId', () => {
    itRefuses(ACTION, [
      ['is required', without(validMessage(ACTION), 'clientId'), 'clientId: is required'],
      [
        'must not be empty',
        { ...validMessage(ACTION), clientId: '' },
        'clientId: must not be empty',
      ],
      [
        'must be a string, not a number',
        { ...validMessage(ACTION), clientId: 1001 },
        expect.stringMatching(/^clientId: .*expected string, received number$/),
      ],
    ]);
  });

  describe('previewRecordData', () => {
    itRefuses(ACTION, [
      [
        'is required',
        without(validMessage(ACTION), 'previewRecordData'),
        'previewRecordData: is required',
      ],
      [
        'must hold at least one item',
        { ...validMessage(ACTION), previewRecordData: [] },
        'previewRecordData: must hold at least one data item',
      ],
      [
        'requires key in every item',
        addOrUpdateWithItem({ value: 'x' }),
        'previewRecordData[1].key: is required',
      ],
      [
        'requires value in every item',
        addOrUpdateWithItem({ key: 'Note' }),
        'previewRecordData[1].value: is required',
      ],
      ['rejects an empty key', withValue('', 'x'), 'previewRecordData[1].key: must not be empty'],
      [
        'rejects an unknown field in an item by name',
        addOrUpdateWithItem({ key: 'Note', value: 'x', label: 'Note' }),
        'previewRecordData[1]: unknown field(s) "label"',
      ],
      [
        'rejects duplicate keys',
        withValue('Name', 'Second name'),
        'previewRecordData[1].key: duplicate data key "Name"',
      ],
    ]);

    itAccepts(ACTION, [['accepts an empty value for an ordinary key', withValue('Note', '')]]);
  });

  describe('displayOrder', () => {
    const withOrder = (displayOrder: unknown) =>
      addOrUpdateWithItem({ key: 'Note', value: 'x', displayOrder });

    itAccepts(ACTION, [
      ...[1, 2, 2_147_483_647].map((order) => [`accepts ${order}`, withOrder(order)] as const),
      ['is optional', withValue('Note', 'x')],
    ]);

    itRefuses(
      ACTION,
      (
        [
          [0, 'must be greater than zero'],
          [-1, 'must be greater than zero'],
          [1.5, 'must be an integer'],
          ['1', 'must be an integer'],
        ] as const
      ).map(([order, reason]) => [
        `rejects ${JSON.stringify(order)}`,
        withOrder(order),
        `previewRecordData[1].displayOrder: ${reason}`,
      ]),
    );
  });

  describe('keys containing "phone" (any case)', () => {
    itAccepts(ACTION, [
      ...['mobilePhone', 'PHONE', 'homephone_2', 'Phone'].map(
        (key) => [`accept E.164 under ${key}`, withValue(key, '+14155550100')] as const,
      ),
      ['leave other keys free text', withValue('Note', '555-1234')],
    ]);

    itRefuses(ACTION, [
      ...['mobilePhone', 'PHONE', 'homephone_2'].map(
        (key) =>
          [
            `reject a non-E.164 value under ${key}`,
            withValue(key, '555-1234'),
            PHONE_ERROR(key),
          ] as const,
      ),
      ...['555-1234', '0049301234', '+0123', '', '+1 415 555 0100', '+1234567890123456'].map(
        (value) =>
          [
            `reject ${JSON.stringify(value)}`,
            withValue('mobilePhone', value),
            expect.stringMatching(
              /^previewRecordData\[1\]\.value: key "mobilePhone" is a phone field/,
            ),
          ] as const,
      ),
    ]);

    it('never echo the rejected number (personal data) in the error', () => {
      // Prepare
      const value = '+49 (0)30 1234-5678';
      const message = withValue('mobilePhone', value);

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toContain('previewRecordData[1].value');
      expect(error).not.toContain(value);
      expect(error).not.toContain('1234-5678');
    });
  });

  describe('keys ending in exactly _link / _button', () => {
    itAccepts(ACTION, [
      ...[
        ['Profile_link', 'https://crm.example.com/leads/1001?tab=history'],
        ['Open_button', 'http://crm.example.com:8080/open'],
      ].map(
        ([key = '', value = '']) =>
          [`accept an absolute http(s) URL under ${key}`, withValue(key, value)] as const,
      ),
      ...['Foo_Link', 'Foo_BUTTON', 'link', 'Foo_link_text'].map(
        (key) =>
          [
            `do not include ${key} (the suffix is case-sensitive and must end the key)`,
            withValue(key, 'not a url'),
          ] as const,
      ),
    ]);

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
      const message = withValue(key, value);

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(
        `previewRecordData[1].value: key "${key}" must hold an absolute http(s) URL such as https://example.com/page`,
      );
      if (value !== '') expect(error).not.toContain(value);
    });
  });

  describe('ItemTimeZone', () => {
    itAccepts(
      ACTION,
      ['Europe/Berlin', 'UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT+1'].map(
        (value) => [`accepts the IANA name ${value}`, withValue('ItemTimeZone', value)] as const,
      ),
    );

    itRefuses(
      ACTION,
      ['+01:00', 'Mars/Olympus', 'CET ', 'europe/berlin', ''].map((value) => [
        `rejects ${JSON.stringify(value)}`,
        withValue('ItemTimeZone', value),
        'previewRecordData[1].value: key "ItemTimeZone" must hold an IANA time zone name such as Europe/Berlin',
      ]),
    );
  });

  describe('SkillQueue', () => {
    itAccepts(ACTION, [['accepts a queue name', withValue('SkillQueue', 'Sales')]]);

    itRefuses(
      ACTION,
      ['', '   '].map((value) => [
        `rejects the blank value ${JSON.stringify(value)}`,
        withValue('SkillQueue', value),
        `previewRecordData[1].value: key "SkillQueue" must name a skill queue (leave the item out for the campaign's default)`,
      ]),
    );
  });

  describe('clientIdFieldName', () => {
    itRefuses(ACTION, [
      [
        'reserves the default data key "Id"',
        withValue('Id', 'CRM-1001'),
        expect.stringMatching(/^previewRecordData\[1\]\.key: data key "Id" is reserved: /),
      ],
      [
        'must not be empty',
        { ...validMessage(ACTION), clientIdFieldName: '' },
        'clientIdFieldName: must not be empty',
      ],
    ]);

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

    itAccepts(ACTION, [
      [
        'allows "Id" as a data key when another clientIdFieldName is in effect',
        {
          ...validMessage(ACTION),
          clientIdFieldName: 'CustomerNo',
          previewRecordData: [{ key: 'Id', value: 'internal-7' }],
        },
      ],
    ]);
  });

  describe('nextEarliestWorkTimeUTC', () => {
    itAccepts(
      ACTION,
      [0, 1_767_225_600_000, MAX_EPOCH_MILLIS].map(
        (time) =>
          [`accepts ${time}`, { ...validMessage(ACTION), nextEarliestWorkTimeUTC: time }] as const,
      ),
    );
  });

  describe('reporting', () => {
    it('reports a missing clientId and a bad phone number together', () => {
      // Prepare
      const message = without(withValue('mobilePhone', '555-1234'), 'clientId');

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error.split('; ')).toEqual(['clientId: is required', PHONE_ERROR('mobilePhone')]);
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

    itRefuses(
      ACTION,
      ['platform', 'companyCode', 'environment'].map((field) => [
        `rejects ${field} (it comes from deployment config) by name`,
        { ...validMessage(ACTION), [field]: 'X' },
        `unknown field(s) "${field}"`,
      ]),
    );
  });
});
