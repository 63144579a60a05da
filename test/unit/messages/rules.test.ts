import { describe, expect, it } from 'vitest';
import {
  isAbsoluteHttpUrl,
  isE164,
  isIanaTimeZone,
  isPhoneKey,
  isUrlKey,
} from '../../../lambdas/messages/rules';

describe('field rules', () => {
  describe('isE164', () => {
    it.each(['+14155550100', '+4930123456', '+12', '+123456789012345'])('accepts %s', (value) => {
      // Act
      const result = isE164(value);

      // Assess
      expect(result).toBe(true);
    });

    it.each([
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
    ])('rejects %j', (value) => {
      // Act
      const result = isE164(value);

      // Assess
      expect(result).toBe(false);
    });
  });

  describe('isAbsoluteHttpUrl', () => {
    it.each([
      'https://crm.example.com/leads/1?x=1#top',
      'http://crm.example.com',
      'https://user@crm.example.com:8443/a',
    ])('accepts %s', (value) => {
      // Act
      const result = isAbsoluteHttpUrl(value);

      // Assess
      expect(result).toBe(true);
    });

    it.each([
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
    ])('rejects %j', (value) => {
      // Act
      const result = isAbsoluteHttpUrl(value);

      // Assess
      expect(result).toBe(false);
    });
  });

  describe('isIanaTimeZone', () => {
    it.each([
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
    ])('accepts %s', (value) => {
      // Act
      const result = isIanaTimeZone(value);

      // Assess
      expect(result).toBe(true);
    });

    it.each([
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
    ])('rejects %j', (value) => {
      // Act
      const result = isIanaTimeZone(value);

      // Assess
      expect(result).toBe(false);
    });

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

  describe('isPhoneKey', () => {
    it.each([
      ['mobilePhone', true],
      ['PHONE', true],
      ['homephone_2', true],
      ['Telefon', false],
      ['Name', false],
    ])('%s → %s', (key, expected) => {
      // Act
      const result = isPhoneKey(key);

      // Assess
      expect(result).toBe(expected);
    });
  });

  describe('isUrlKey', () => {
    it.each([
      ['Profile_link', true],
      ['Open_button', true],
      ['_link', true],
      ['Foo_Link', false],
      ['Foo_BUTTON', false],
      ['Foo_link_text', false],
      ['link', false],
    ])('%s → %s', (key, expected) => {
      // Act
      const result = isUrlKey(key);

      // Assess
      expect(result).toBe(expected);
    });
  });
});
