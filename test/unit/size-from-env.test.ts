import { afterEach, describe, expect, it } from 'vitest';
import { propertySeed, sizeFromEnv } from '../support/size-from-env';

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

describe('a property seed from the environment', () => {
  const saved = process.env.PROPERTY_SEED;
  afterEach(() => {
    delete process.env.TEST_SEED_FROM_ENV;
    if (saved === undefined) delete process.env.PROPERTY_SEED;
    else process.env.PROPERTY_SEED = saved;
  });

  it.each<[string, string | undefined, string | undefined, number]>([
    ['the CI seed when neither is set', undefined, undefined, 20261127],
    ['the CI seed moved by PROPERTY_SEED', '3', undefined, 20261130],
    ["the suite's own variable before PROPERTY_SEED", '3', '11', 11],
    ["the suite's own variable alone", undefined, '11', 11],
  ])('%s', (_name, moved, own, expected) => {
    // Prepare
    delete process.env.PROPERTY_SEED;
    if (moved !== undefined) process.env.PROPERTY_SEED = moved;
    if (own !== undefined) process.env.TEST_SEED_FROM_ENV = own;

    // Act
    const seed = propertySeed(20261127, 'TEST_SEED_FROM_ENV');

    // Assess
    expect(seed).toBe(expected);
  });

  it('moves two suites to two different seeds', () => {
    // Prepare
    process.env.PROPERTY_SEED = '5';

    // Act
    const seeds = [propertySeed(20261124), propertySeed(20261125)];

    // Assess
    expect(seeds).toEqual([20261129, 20261130]);
  });

  it('refuses a PROPERTY_SEED that is not a whole number, by name', () => {
    // Prepare
    process.env.PROPERTY_SEED = 'x';

    // Act
    const read = () => propertySeed(20261127);

    // Assess
    expect(read).toThrow('PROPERTY_SEED=x: must be a whole number (default 0)');
  });
});
