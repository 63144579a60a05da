/**
 * The schema walker behind the fuzz suites (support/zod-arbitrary.ts) reads zod's definitions
 * directly, so it must keep deriving the contract's bounds and keep refusing what it cannot walk.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { MESSAGE_SCHEMAS } from '../../lambdas/actions';
import { MAX_EPOCH_MILLIS } from '../../lambdas/messages/rules';
import { arbitraryFromSchema, fieldsOf } from './support/zod-arbitrary';

describe('zod-arbitrary', () => {
  it('derives lengths, integer bounds, enums, optionality and e-mail from the contract', () => {
    // Prepare
    const schema = MESSAGE_SCHEMAS['add-or-update-campaign-record'];

    // Act
    const fields = Object.fromEntries(fieldsOf(schema).map((field) => [field.name, field]));

    // Assess
    expect(fields.correlationId).toEqual({
      name: 'correlationId',
      required: false,
      shape: { kind: 'string', min: 1, max: 128, email: false, datetime: false },
    });
    expect(fields.nextEarliestWorkTimeUTC?.shape).toEqual({
      kind: 'int',
      min: 0,
      max: MAX_EPOCH_MILLIS,
    });
    expect(fields.region?.shape.kind).toBe('enum');
    expect(fields.previewRecordData?.shape).toMatchObject({ kind: 'array', min: 1, max: 500 });
    expect(
      fieldsOf(MESSAGE_SCHEMAS['add-user']).find((f) => f.name === 'primaryEmailAddr'),
    ).toMatchObject({ required: false, shape: { kind: 'string', max: 256, email: true } });
  });

  it('generates values the walked schema accepts', () => {
    // Prepare
    const schema = z.strictObject({
      name: z.string().check(z.minLength(2), z.maxLength(5)),
      count: z.optional(z.int().check(z.gt(0), z.lt(10))),
      tags: z.array(z.enum(['a', 'b'])).check(z.minLength(1)),
      on: z.boolean(),
    });

    // Act
    const values = fc.sample(arbitraryFromSchema(schema), { numRuns: 200, seed: 7 });

    // Assess
    expect(values.filter((value) => !schema.safeParse(value).success)).toEqual([]);
  });

  it.each([
    ['a construct it does not know', z.strictObject({ at: z.date() }), 'zod type "date" at "at"'],
    ['a non-strict object', z.object({ at: z.string() }), 'an object that is not strict'],
    [
      'a refined leaf',
      z.strictObject({ at: z.string().check(z.refine((value) => value !== 'x')) }),
      'a refinement at "at"',
    ],
    ['a non-integer number', z.strictObject({ at: z.number() }), 'a non-integer number at "at"'],
  ])('throws on %s instead of skipping it', (_what, schema, message) => {
    // Prepare
    const walk = () => arbitraryFromSchema(schema);

    // Act / Assess
    expect(walk).toThrow(message);
  });
});
