import { describe, expect, it } from 'vitest';
import {
  compareValues,
  matchesCondition,
  SEARCH_CONDITIONS,
} from '../../../local/simulator/criteria';
import { formatPlatformTime } from '../../../local/simulator/time-format';

describe('criteria comparison', () => {
  it.each([
    ['9', '10', -1],
    ['10', '9', 1],
    ['1e3', '999', 1],
    ['-2.5', '-3', 1],
    ['007', '7', 0],
    ['abc', 'abd', -1],
    ['B', 'a', -1],
    ['10', 'x', -1],
    ['0x10', '9', -1],
    ['', '1', -1],
  ])(
    'compareValues(%j, %j) = %d (numeric only when both are decimal numbers)',
    (a, b, expected) => {
      // Act
      const result = compareValues(a, b);

      // Assess
      expect(result).toBe(expected);
    },
  );

  it('an absent value matches no condition', () => {
    // Act
    const results = SEARCH_CONDITIONS.map((c) => matchesCondition(undefined, c, 'x'));

    // Assess
    expect(results).toEqual([false, false, false, false, false, false]);
  });
});

describe('platform time format', () => {
  it.each([
    [0, '1970-01-01 00:00:00.000'],
    [1_700_000_000_123, '2023-11-14 22:13:20.123'],
    [253_402_300_799_999, '9999-12-31 23:59:59.999'],
  ])('formats %d as %s (UTC CCYY-MM-DD HH:MM:SS.mmm)', (millis, expected) => {
    // Act
    const formatted = formatPlatformTime(millis);

    // Assess
    expect(formatted).toBe(expected);
  });
});
