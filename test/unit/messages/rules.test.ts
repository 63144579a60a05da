import { describe, expect, it } from 'vitest';
import {
  isAbsoluteHttpUrl,
  isE164,
  isIanaTimeZone,
  isPhoneKey,
  isUrlKey,
} from '../../../lambdas/messages/rules';

/** A value rule with the values it must accept and the values it must reject. */
interface ValueRuleCases {
  readonly rule: string;
  readonly check: (value: string) => boolean;
  readonly accepts: readonly string[];
  readonly rejects: readonly string[];
}

const VALUE_RULES: readonly ValueRuleCases[] = [
  {
    rule: 'isE164',
    check: isE164,
    accepts: ['+14155550100', '+4930123456', '+12', '+123456789012345'],
    rejects: [
      '555-1234',
      '0049301234',
      '+0123',
      '',
      '+',
      '+1',
      '14155550100',
      '+1 415 555 0100',
      '+1234567890123456',
      '+14155550100\n',
    ],
  },
  {
    rule: 'isAbsoluteHttpUrl',
    check: isAbsoluteHttpUrl,
    accepts: [
      'https://crm.example.com/leads/1?x=1#top',
      'http://crm.example.com',
      'https://user@crm.example.com:8443/a',
    ],
    rejects: [
      'javascript:alert(1)',
      '/relative',
      'ftp://x',
      'file:///etc/passwd',
      'mailto:ada@corp.example',
      'https://',
      ' https://crm.example.com',
      'https://crm.example.com/a b',
      'https://crm.exa\nmple.com',
      '',
    ],
  },
  {
    rule: 'isIanaTimeZone',
    check: isIanaTimeZone,
    accepts: [
      'Europe/Berlin',
      'UTC',
      'America/Argentina/Buenos_Aires',
      'America/North_Dakota/New_Salem',
      'America/Port-au-Prince',
      'Etc/GMT+1',
      'Etc/GMT-14',
      // Backward links are still IANA names.
      'Asia/Calcutta',
      'US/Pacific',
      'Europe/Kyiv',
      'GMT',
      'CET',
    ],
    rejects: [
      // Intl accepts these, but they are offsets or misspellings, not tz database names.
      '+01:00',
      '-0500',
      'utc',
      'europe/berlin',
      'EUROPE/BERLIN',
      'Europe/BERLIN',
      'US/PACIFIC',
      'America/Argentina/BUENOS_AIRES',
      // Intl rejects these too.
      'Mars/Olympus',
      'CET ',
      ' Europe/Berlin',
      'Z',
      'UTC+1',
      'Factory',
      '',
    ],
  },
];

/** A data-key rule with keys and whether the rule holds for each. */
const KEY_RULES: readonly {
  readonly rule: string;
  readonly check: (key: string) => boolean;
  readonly cases: readonly (readonly [string, boolean])[];
}[] = [
  {
    rule: 'isPhoneKey',
    check: isPhoneKey,
    cases: [
      ['mobilePhone', true],
      ['PHONE', true],
      ['homephone_2', true],
      ['Telefon', false],
      ['Name', false],
    ],
  },
  {
    rule: 'isUrlKey',
    check: isUrlKey,
    cases: [
      ['Profile_link', true],
      ['Open_button', true],
      ['_link', true],
      ['Foo_Link', false],
      ['Foo_BUTTON', false],
      ['Foo_link_text', false],
      ['link', false],
    ],
  },
];

describe('field rules', () => {
  describe.each(VALUE_RULES)('$rule', ({ check, accepts, rejects }) => {
    it.each(accepts)('accepts %s', (value) => {
      // Act
      const result = check(value);

      // Assess
      expect(result).toBe(true);
    });

    it.each(rejects)('rejects %j', (value) => {
      // Act
      const result = check(value);

      // Assess
      expect(result).toBe(false);
    });
  });

  describe('isIanaTimeZone', () => {
    it('gives the same answer when asked again (answers are cached)', () => {
      // Prepare
      const first = [isIanaTimeZone('Europe/Berlin'), isIanaTimeZone('europe/berlin')];

      // Act
      const second = [isIanaTimeZone('Europe/Berlin'), isIanaTimeZone('europe/berlin')];

      // Assess
      expect(second).toEqual(first);
      expect(second).toEqual([true, false]);
    });
  });

  describe.each(KEY_RULES)('$rule', ({ check, cases }) => {
    it.each(cases)('%s → %s', (key, expected) => {
      // Act
      const result = check(key);

      // Assess
      expect(result).toBe(expected);
    });
  });
});
