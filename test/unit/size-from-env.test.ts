import { afterEach, describe, expect, it } from 'vitest';
import { sizeFromEnv } from '../support/size-from-env';

describe('a property suite size from the environment', () => {
  afterEach(() => {
    delete process.env.TEST_SIZE_FROM_ENV;
  });

  it.each([
    [undefined, 25],
    ['', 25],
    ['4000', 4000],
    ['0', 0],
  ])('reads %j as %i (CI default 25)', (raw, expected) => {
    // Prepare
    if (raw !== undefined) process.env.TEST_SIZE_FROM_ENV = raw;

    // Act
    const size = sizeFromEnv('TEST_SIZE_FROM_ENV', 25);

    // Assess
    expect(size).toBe(expected);
  });

  it.each(['many', '2.5', '-1'])('refuses %j by name instead of running NaN histories', (raw) => {
    // Prepare
    process.env.TEST_SIZE_FROM_ENV = raw;

    // Act
    const read = () => sizeFromEnv('TEST_SIZE_FROM_ENV', 25);

    // Assess
    expect(read).toThrow(`TEST_SIZE_FROM_ENV=${raw}: must be a whole number (default 25)`);
  });
});
