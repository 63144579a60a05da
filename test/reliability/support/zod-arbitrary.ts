/**
 * A small zod → fast-check walker for the constructs the message contracts use: strictObject,
 * optional, string (min/max length, email), int (min/max), enum, array (min/max), boolean.
 * Refinements (`.refine`, `.check`) cannot be walked: a leaf that carries one must be given an
 * override, and cross-field rules are applied by the caller on top. Anything else throws, so a
 * new construct in a schema makes the fuzz suite fail loudly instead of silently skipping it.
 */
import fc from 'fast-check';
import * as z from 'zod/mini';

// The contract is built with zod/mini, whose schemas carry no `.minLength`/`.maxValue`/`.unwrap()`
// accessors; the walker reads the core definitions (`_zod.def`) instead. Matching on the core
// classes (`z.core.$ZodString`…) keeps it independent of which zod API built the schema.
type Schema = z.core.$ZodType;

/** Where a field sits: `campaignName`, `previewRecordData[]`, `previewRecordData[].key`. */
export type FieldPath = string;

export interface WalkOptions {
  /** Arbitraries for paths the walker cannot derive (refined leaves, cross-field arrays). */
  readonly overrides?: Readonly<Record<FieldPath, fc.Arbitrary<unknown>>>;
  /** Cap on generated array lengths; keeps cases small. @default 6 */
  readonly maxArrayLength?: number;
}

/** What the mutation generator needs to know about one field of an object schema. */
export type FieldShape =
  | {
      readonly kind: 'string';
      readonly min: number;
      readonly max: number;
      readonly email: boolean;
      /** `z.iso.datetime()`: an RFC 3339 UTC time with milliseconds. */
      readonly datetime: boolean;
    }
  | { readonly kind: 'int'; readonly min: number; readonly max: number }
  | { readonly kind: 'enum'; readonly options: readonly string[] }
  | { readonly kind: 'boolean' }
  | {
      readonly kind: 'array';
      readonly min: number;
      readonly max: number;
      readonly element: FieldShape;
    }
  | { readonly kind: 'object'; readonly fields: readonly FieldInfo[] };

export interface FieldInfo {
  readonly name: string;
  readonly required: boolean;
  readonly shape: FieldShape;
}

interface CheckDef {
  readonly check: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly value?: number;
  readonly inclusive?: boolean;
  readonly format?: string;
}

/**
 * zod keeps every bound in the schema's check list; read them from there. A format schema
 * (`z.int()`, `z.email()`) is itself its first check, as zod's own aggregation treats it.
 */
const checkDefs = (schema: Schema): CheckDef[] => {
  const own = (schema._zod.def.checks ?? []).map((check) => check._zod.def as unknown as CheckDef);
  const self = schema._zod.def as unknown as CheckDef;
  return schema._zod.traits.has('$ZodCheck') ? [self, ...own] : own;
};

const hasRefinement = (schema: Schema): boolean =>
  checkDefs(schema).some((check) => check.check === 'custom');

/** Length bounds (strings, arrays); the tightest wins, as in zod. */
const lengthBounds = (schema: Schema): { min: number; max: number } => {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const check of checkDefs(schema)) {
    if (check.check === 'min_length' && check.minimum !== undefined) {
      min = Math.max(min, check.minimum);
    }
    if (check.check === 'max_length' && check.maximum !== undefined) {
      max = Math.min(max, check.maximum);
    }
  }
  return { min, max };
};

/** Integer bounds: the range of the int format (`z.int()`: safe integers), narrowed by min/max. */
const integerBounds = (schema: Schema): { isInt: boolean; min: number; max: number } => {
  let isInt = false;
  let min = Number.MIN_SAFE_INTEGER;
  let max = Number.MAX_SAFE_INTEGER;
  for (const check of checkDefs(schema)) {
    if (check.check === 'number_format' && check.format?.includes('int')) {
      isInt = true;
      const [low, high] = z.util.NUMBER_FORMAT_RANGES[check.format as z.core.$ZodNumberFormats];
      min = Math.max(min, low);
      max = Math.min(max, high);
    }
    // gt/lt are exclusive; on integers they become the next integer inside.
    if (check.check === 'greater_than' && check.value !== undefined) {
      min = Math.max(min, check.inclusive ? check.value : Math.floor(check.value) + 1);
    }
    if (check.check === 'less_than' && check.value !== undefined) {
      max = Math.min(max, check.inclusive ? check.value : Math.ceil(check.value) - 1);
    }
  }
  return { isInt, min, max };
};

const unsupported = (path: FieldPath, what: string): Error =>
  new Error(`zod-arbitrary: ${what} at "${path || '(root)'}" is not supported; add an override`);

/** The shape of one (non-optional) schema, for mutations. Refinements are ignored here. */
export const shapeOf = (schema: Schema, path: FieldPath = ''): FieldShape => {
  // `z.email()` is a string format, a kind of $ZodString with its format in the definition.
  if (schema instanceof z.core.$ZodString) {
    const { min, max } = lengthBounds(schema);
    const { format } = schema._zod.def as { format?: string };
    return { kind: 'string', min, max, email: format === 'email', datetime: format === 'datetime' };
  }
  if (schema instanceof z.core.$ZodNumber) {
    const { isInt, min, max } = integerBounds(schema);
    if (!isInt) throw unsupported(path, 'a non-integer number');
    return { kind: 'int', min, max };
  }
  if (schema instanceof z.core.$ZodEnum) {
    return { kind: 'enum', options: Object.values(schema._zod.def.entries).map(String) };
  }
  if (schema instanceof z.core.$ZodBoolean) return { kind: 'boolean' };
  if (schema instanceof z.core.$ZodArray) {
    const { min, max } = lengthBounds(schema);
    return { kind: 'array', min, max, element: shapeOf(schema._zod.def.element, `${path}[]`) };
  }
  if (schema instanceof z.core.$ZodObject) {
    return { kind: 'object', fields: fieldsOf(schema, path) };
  }
  throw unsupported(path, `zod type "${schema._zod.def.type}"`);
};

/** A field without its `optional()` wrapper, and whether it had one. */
const unwrapOptional = (field: Schema): { required: boolean; inner: Schema } =>
  field instanceof z.core.$ZodOptional
    ? { required: false, inner: field._zod.def.innerType }
    : { required: true, inner: field };

/** The fields of an object schema (every message schema is one), with whether each is required. */
export const fieldsOf = (schema: z.core.$ZodType, path: FieldPath = ''): FieldInfo[] => {
  if (!(schema instanceof z.core.$ZodObject)) throw new Error(`${path || 'schema'}: not an object`);
  return Object.entries(schema._zod.def.shape).map(([name, field]) => {
    const fieldPath = path === '' ? name : `${path}.${name}`;
    const { required, inner } = unwrapOptional(field);
    return { name, required, shape: shapeOf(inner, fieldPath) };
  });
};

// ---- leaf arbitraries ------------------------------------------------------------------

/** zod measures string length in code points (an emoji counts once), so do we. */
export const codePoints = (value: string): number => {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
};

/** A string of exactly `length` code points, with a non-ASCII and an astral character. */
export const stringOfLength = (length: number): string => {
  if (length < 3) return 'x'.repeat(length);
  return `é${'x'.repeat(length - 2)}😀`;
};

/**
 * Text within zod's length rules: mostly short ASCII, often Unicode (combining marks, emoji,
 * RTL), sometimes exactly at the bounds.
 */
export const text = (min: number, max: number): fc.Arbitrary<string> => {
  const upper = Number.isFinite(max) ? max : 10_000;
  return fc
    .oneof(
      {
        weight: 6,
        arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: 24 }),
      },
      { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: min, maxLength: 12 }) },
      { weight: 1, arbitrary: fc.constantFrom(stringOfLength(min), stringOfLength(upper)) },
    )
    .filter((value) => codePoints(value) >= min && codePoints(value) <= upper);
};

const ALNUM = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];
const LETTERS = ALNUM.slice(0, 52);

/** RFC 3339 UTC times with milliseconds, as `occurredAt` takes them. */
const isoTime: fc.Arbitrary<string> = fc
  .integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) })
  .map((ms) => new Date(ms).toISOString());

/**
 * E-mail addresses of the shape zod's `z.email()` documents (its default, "Gmail-like" rule):
 * local part of letters, digits and `_ ' + - .` (no leading dot, no `..`), dotted labels, a
 * letter-only top-level domain.
 */
export const email = (max: number): fc.Arbitrary<string> => {
  const localEnd = fc.constantFrom(...ALNUM, '_', '+', '-');
  const local = fc
    .tuple(
      fc.string({ unit: fc.constantFrom(...ALNUM, '_', "'", '+', '-', '.'), maxLength: 12 }),
      localEnd,
    )
    .map(([head, end]) => `${head}${end}`)
    .filter((part) => !part.startsWith('.') && !part.includes('..'));
  const label = fc
    .tuple(
      fc.constantFrom(...ALNUM),
      fc.string({ unit: fc.constantFrom(...ALNUM, '-'), maxLength: 10 }),
    )
    .map(([first, rest]) => `${first}${rest}`);
  const tld = fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 2, maxLength: 6 });
  return fc
    .tuple(local, fc.array(label, { minLength: 1, maxLength: 3 }), tld)
    .map(([user, labels, top]) => `${user}@${labels.join('.')}.${top}`)
    .filter((address) => address.length <= max);
};

/** Integers in [min, max], with the bounds themselves weighted in. */
export const integer = (min: number, max: number): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.bigInt(BigInt(min), BigInt(max)).map(Number) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  );

// ---- the walker --------------------------------------------------------------------------

/** An arbitrary of values the schema accepts, refinements aside (see the module comment). */
export const arbitraryFromSchema = (
  schema: Schema,
  options: WalkOptions = {},
  path: FieldPath = '',
): fc.Arbitrary<unknown> => {
  const override = options.overrides?.[path];
  if (override !== undefined) return override;
  const maxArrayLength = options.maxArrayLength ?? 6;

  if (schema instanceof z.core.$ZodObject) {
    // Only strict objects: the contract refuses unknown fields, and the mutations rely on it.
    if (!(schema._zod.def.catchall instanceof z.core.$ZodNever)) {
      throw unsupported(path, 'an object that is not strict');
    }
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    const requiredKeys: string[] = [];
    for (const [name, field] of Object.entries(schema._zod.def.shape)) {
      const fieldPath = path === '' ? name : `${path}.${name}`;
      const { required, inner } = unwrapOptional(field);
      model[name] = arbitraryFromSchema(inner, options, fieldPath);
      if (required) requiredKeys.push(name);
    }
    // Optional keys are left out (never set to undefined), as a producer's JSON would.
    return fc.record(model, { requiredKeys, noNullPrototype: true });
  }
  if (hasRefinement(schema)) throw unsupported(path, 'a refinement');
  const shape = shapeOf(schema, path);
  switch (shape.kind) {
    case 'string':
      if (shape.datetime) return isoTime;
      return shape.email ? email(shape.max) : text(shape.min, shape.max);
    case 'int':
      return integer(shape.min, shape.max);
    case 'enum':
      return fc.constantFrom(...shape.options);
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const element = arbitraryFromSchema(
        (schema as z.core.$ZodArray)._zod.def.element,
        options,
        `${path}[]`,
      );
      return fc.array(element, {
        minLength: shape.min,
        maxLength: Math.max(shape.min, Math.min(shape.max, maxArrayLength)),
      });
    }
    case 'object':
      throw unsupported(path, 'an object');
  }
};
