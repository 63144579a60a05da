/**
 * Mutations that turn a valid message into an invalid SQS body, each with what the dead letter
 * must say: the error code and the field(s) its reason must name. The field list comes from
 * the zod schema (support/zod-arbitrary.ts), so every field of every action is a target.
 */
import fc from 'fast-check';
import type { ActionName } from '../../../lambdas/actions';
import { MESSAGE_SCHEMAS } from '../../../lambdas/actions';
import { type Message, validMessage } from './message-arbitraries';
import { type FieldInfo, type FieldShape, fieldsOf, stringOfLength } from './zod-arbitrary';

export const MUTATION_KINDS = [
  'wrong-type',
  'missing-field',
  'extra-field',
  'unicode',
  'long-string',
  'body-256kb',
  'invalid-json',
  'not-an-object',
  'proto-key',
  'number-as-string',
  'bad-enum',
  'bad-display-order',
  'date-out-of-range',
] as const;

export type MutationKind = (typeof MUTATION_KINDS)[number];

export interface MutatedBody {
  readonly kind: MutationKind;
  /** The SQS body as the producer sent it. */
  readonly body: string;
  readonly errorCode: 'INVALID_MESSAGE' | 'INVALID_JSON';
  /** Texts the dead letter's reason must contain (the field path, or the JSON problem). */
  readonly mentions: readonly string[];
}

/** The largest SQS message body (256 KiB). */
export const SQS_MAX_BODY_BYTES = 256 * 1024;
const MAX_EPOCH_MILLIS = 253_402_300_799_999;

/** A place in a message that can be mutated: the object holding it, its key, its path. */
interface Target {
  readonly holder: Record<string, unknown>;
  readonly key: string;
  readonly path: string;
  readonly info: FieldInfo;
}

/** Top-level fields (present or not) and the fields of every array item present. */
const targetsOf = (fields: readonly FieldInfo[], message: Message): Target[] => {
  const targets: Target[] = fields.map((info) => ({
    holder: message,
    key: info.name,
    path: info.name,
    info,
  }));
  for (const info of fields) {
    const items = message[info.name];
    if (info.shape.kind !== 'array' || info.shape.element.kind !== 'object') continue;
    if (!Array.isArray(items)) continue;
    const elementFields = info.shape.element.fields;
    items.forEach((item: Record<string, unknown>, index) => {
      for (const field of elementFields) {
        targets.push({
          holder: item,
          key: field.name,
          path: `${info.name}[${index}].${field.name}`,
          info: field,
        });
      }
    });
  }
  return targets;
};

/** Array items present (their holder and path), for item-level insertions. */
const itemsOf = (
  fields: readonly FieldInfo[],
  message: Message,
): { item: Record<string, unknown>; path: string }[] =>
  fields.flatMap((info) => {
    const items = message[info.name];
    if (info.shape.kind !== 'array' || !Array.isArray(items)) return [];
    return items.map((item: Record<string, unknown>, index) => ({
      item,
      path: `${info.name}[${index}]`,
    }));
  });

/** JSON values of another type than the field's. */
const wrongTypeValue = (shape: FieldShape): fc.Arbitrary<unknown> => {
  const others = {
    number: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
    string: fc.string({ maxLength: 8 }),
    boolean: fc.boolean(),
    null: fc.constant(null),
    array: fc.array(fc.integer(), { maxLength: 2 }),
    object: fc.constant({ value: 'x' }),
  };
  switch (shape.kind) {
    case 'string':
    case 'enum':
      return fc.oneof(others.number, others.boolean, others.null, others.array, others.object);
    case 'int':
      return fc.oneof(others.string, others.boolean, others.null, others.array, others.object);
    case 'boolean':
      return fc.oneof(others.number, others.string, others.null, others.array, others.object);
    case 'array':
      return fc.oneof(others.number, others.string, others.boolean, others.null, others.object);
    case 'object':
      return fc.oneof(others.number, others.string, others.boolean, others.null, others.array);
  }
};

/** Characters that look like ASCII but are not (Cyrillic, fullwidth, zero-width, RTL). */
const LOOKALIKES: readonly [string, string][] = [
  ['e', '\u0435'],
  ['a', '\u0430'],
  ['o', '\u043E'],
  ['c', '\u0441'],
  ['E', '\u0415'],
  ['O', '\u041E'],
  ['-', '\u2010'],
  ['1', '\uFF11'],
];

const lookalike = (value: string, choice: number): string => {
  const candidates = LOOKALIKES.filter(([ascii]) => value.includes(ascii));
  const pair = candidates[choice % Math.max(1, candidates.length)];
  if (pair === undefined) return `\u200B${value}`;
  return value.replace(pair[0], pair[1]);
};

const json = (message: Message): string => JSON.stringify(message);
const clone = (message: Message): Message => structuredClone(message);

const invalid = (kind: MutationKind, body: string, mentions: readonly string[]): MutatedBody => ({
  kind,
  body,
  errorCode: 'INVALID_MESSAGE',
  mentions,
});

/** A mutated body of the given kind, or undefined when the kind does not apply to the message. */
const mutation = (
  kind: MutationKind,
  fields: readonly FieldInfo[],
  message: Message,
): fc.Arbitrary<MutatedBody> | undefined => {
  const targets = targetsOf(fields, message);
  const strings = targets.filter((t) => t.info.shape.kind === 'string');
  const ints = targets.filter((t) => t.info.shape.kind === 'int');
  const enums = targets.filter((t) => t.info.shape.kind === 'enum');
  const pick = <T>(list: readonly T[]): fc.Arbitrary<T> | undefined =>
    list.length === 0 ? undefined : fc.constantFrom(...list);
  const withValue = (target: Target, value: unknown): Message => {
    const copy = clone(message);
    // Re-find the holder inside the copy by walking the path.
    holderIn(copy, target)[target.key] = value;
    return copy;
  };

  switch (kind) {
    case 'wrong-type':
      return pick(targets)?.chain((target) =>
        wrongTypeValue(target.info.shape).map((value) =>
          invalid(kind, json(withValue(target, value)), [target.path]),
        ),
      );

    case 'missing-field': {
      const required = targets.filter((t) => t.info.required);
      return pick(required)?.map((target) => {
        const copy = clone(message);
        delete holderIn(copy, target)[target.key];
        return invalid(kind, json(copy), [target.path]);
      });
    }

    case 'extra-field': {
      const names = new Set(fields.map((f) => f.name));
      const places = [{ item: undefined, path: '' }, ...itemsOf(fields, message)];
      return fc
        .tuple(
          fc.constantFrom(...places),
          fc
            .string({ minLength: 1, maxLength: 20 })
            .filter((key) => !names.has(key) && key !== '__proto__' && !key.includes('"')),
          fc.jsonValue({ maxDepth: 1 }),
        )
        .map(([place, key, value]) => {
          const copy = clone(message);
          const holder = place.item === undefined ? copy : itemAt(copy, place.path);
          // Item fields differ from message fields; only keep names that are unknown there too.
          if (place.item !== undefined && Object.hasOwn(place.item, key))
            holder[`${key}_x`] = value;
          else holder[key] = value;
          const added =
            place.item !== undefined && Object.hasOwn(place.item, key) ? `${key}_x` : key;
          return invalid(kind, json(copy), [
            ...(place.path === '' ? [] : [place.path]),
            `"${added}"`,
          ]);
        });
    }

    case 'unicode': {
      const variants: fc.Arbitrary<MutatedBody>[] = [];
      // A field renamed to a lookalike: unknown to the contract, named in the reason.
      const present = targets.filter((t) => t.holder === message && message[t.key] !== undefined);
      const renamed = pick(present)?.chain((target) =>
        fc.nat().map((choice) => {
          const copy = clone(message);
          const value = copy[target.key];
          delete copy[target.key];
          const name = lookalike(target.key, choice);
          copy[name] = value;
          return invalid(kind, json(copy), [`"${name}"`]);
        }),
      );
      if (renamed) variants.push(renamed);
      // An enum value with a lookalike character.
      const enumValue = pick(enums)?.chain((target) =>
        fc
          .tuple(fc.constantFrom(...optionsOf(target)), fc.nat())
          .map(([option, choice]) =>
            invalid(kind, json(withValue(target, lookalike(option, choice))), [target.path]),
          ),
      );
      if (enumValue) variants.push(enumValue);
      // Over the length limit in emoji (zod counts code points, not UTF-16 units).
      const astral = pick(strings.filter((t) => maxOf(t) <= 4000))?.map((target) =>
        invalid(kind, json(withValue(target, '😀'.repeat(maxOf(target) + 1))), [target.path]),
      );
      if (astral) variants.push(astral);
      // An e-mail with a non-ASCII character.
      const emails = strings.filter((t) => t.info.shape.kind === 'string' && t.info.shape.email);
      const unicodeEmail = pick(emails)?.chain((target) =>
        fc
          .constantFrom('zoë@example.com', 'ａda@example.com', 'ada@exämple.com', 'ada@例え.jp')
          .map((value) => invalid(kind, json(withValue(target, value)), [target.path])),
      );
      if (unicodeEmail) variants.push(unicodeEmail);
      return fc.oneof(...variants);
    }

    case 'long-string':
      return pick(strings.filter((t) => Number.isFinite(maxOf(t))))?.chain((target) =>
        fc
          .oneof(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 11, max: 100_000 }))
          .map((extra) =>
            invalid(kind, json(withValue(target, stringOfLength(maxOf(target) + extra))), [
              target.path,
            ]),
          ),
      );

    case 'body-256kb':
      return pick(strings)?.chain((target) =>
        fc.integer({ min: SQS_MAX_BODY_BYTES - 6 * 1024, max: SQS_MAX_BODY_BYTES }).map((size) => {
          const base = Buffer.byteLength(json(withValue(target, '')));
          const padded = withValue(target, 'a'.repeat(Math.max(0, size - base)));
          return invalid(kind, json(padded), [target.path]);
        }),
      );

    case 'invalid-json': {
      const text = json(message);
      return fc
        .oneof(
          fc.nat({ max: text.length - 1 }).map((cut) => text.slice(0, cut)),
          fc.constant(`${text.slice(0, -1)},}`),
          fc.constant(text.replace('"', "'")),
          fc.constant(`\uFEFF${text}`),
          fc.constant(`${text}}`),
          fc.constant(text.replace(/:(\d+)/, ':NaN').replace(/^\{/, '{"a":undefined,')),
          fc.constantFrom('', ' ', 'null,', '{', '<html>502 Bad Gateway</html>', "{'a':1}"),
        )
        .map((body) => ({
          kind,
          body,
          errorCode: 'INVALID_JSON' as const,
          mentions: ['not valid JSON'],
        }));
    }

    case 'not-an-object':
      return fc
        .oneof(
          fc.constant([message]),
          fc.constant(null),
          fc.string({ maxLength: 20 }),
          fc.integer(),
          fc.boolean(),
          fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
        )
        .map((value) => invalid(kind, JSON.stringify(value), ['(message)']));

    case 'proto-key': {
      const places = ['', ...itemsOf(fields, message).map((p) => p.path)];
      return fc
        .tuple(fc.constantFrom(...places), fc.constantFrom('__proto__', 'constructor', 'prototype'))
        .map(([place, key]) => {
          const payload =
            key === 'constructor'
              ? '{"prototype":{"polluted":"yes"}}'
              : '{"polluted":"yes","isAdmin":true}';
          // Written as text: an object literal cannot hold an own "__proto__" key.
          const body = insertRawKey(message, place, key, payload);
          return invalid(kind, body, [...(place === '' ? [] : [place]), `"${key}"`]);
        });
    }

    case 'number-as-string': {
      const present = ints.filter((t) => t.holder[t.key] !== undefined);
      return pick(present)?.map((target) =>
        invalid(kind, json(withValue(target, String(target.holder[target.key]))), [target.path]),
      );
    }

    case 'bad-enum':
      return pick(enums)?.chain((target) =>
        fc
          .oneof(
            fc.constantFrom(...optionsOf(target)).map((o) => o.toLowerCase()),
            fc.constantFrom(...optionsOf(target)).map((o) => o.toUpperCase()),
            fc.constantFrom(...optionsOf(target)).map((o) => ` ${o}`),
            fc.string({ maxLength: 12 }),
          )
          // Region names are lower case already: a case change may leave a valid value.
          .filter((value) => !optionsOf(target).includes(value))
          .map((value) => invalid(kind, json(withValue(target, value)), [target.path])),
      );

    case 'bad-display-order': {
      const orders = ints.filter((t) => t.key === 'displayOrder');
      return pick(orders)?.chain((target) =>
        fc
          .oneof(
            fc.constant(0),
            fc.integer({ min: -2_147_483_648, max: -1 }),
            fc.integer({ min: 1, max: 1000 }).map((n) => n + 0.5),
            fc.double({ min: 0.001, max: 0.999, noNaN: true }),
            fc.constant(2_147_483_648),
            fc.constant(1e21),
          )
          .map((value) => invalid(kind, json(withValue(target, value)), [target.path])),
      );
    }

    case 'date-out-of-range': {
      const dates = targets.filter((t) => t.key === 'nextEarliestWorkTimeUTC');
      return pick(dates)?.chain((target) =>
        fc
          .oneof(
            fc.integer({ min: -1_000_000, max: -1 }),
            fc.constant(-8_640_000_000_000_000),
            fc.constant(MAX_EPOCH_MILLIS + 1),
            fc.constant(Number.MAX_SAFE_INTEGER + 2),
            fc.constant(1e300),
            fc.integer({ min: 0, max: 1_000_000 }).map((n) => n + 0.25),
          )
          .map((value) => invalid(kind, json(withValue(target, value)), [target.path])),
      );
    }
  }
};

const maxOf = (target: Target): number =>
  target.info.shape.kind === 'string' ? target.info.shape.max : Number.POSITIVE_INFINITY;

const optionsOf = (target: Target): readonly string[] =>
  target.info.shape.kind === 'enum' ? target.info.shape.options : [];

const ITEM_PATH = /^(\w+)\[(\d+)\]$/;

/** The array item at `name[index]` inside `message`. */
const itemAt = (message: Message, path: string): Record<string, unknown> => {
  const match = ITEM_PATH.exec(path);
  const items = match ? message[match[1] ?? ''] : undefined;
  const item = Array.isArray(items) ? items[Number(match?.[2])] : undefined;
  if (typeof item !== 'object' || item === null) throw new Error(`no item at ${path}`);
  return item as Record<string, unknown>;
};

/** The object holding `target` inside a copy of the message it was found in. */
const holderIn = (copy: Message, target: Target): Record<string, unknown> => {
  const dot = target.path.lastIndexOf('.');
  return dot === -1 ? copy : itemAt(copy, target.path.slice(0, dot));
};

/** JSON text of `message` with `"key": payload` as the first member at `place` ('' = top). */
const insertRawKey = (message: Message, place: string, key: string, payload: string): string => {
  const marker = '__fuzz_insert_marker__';
  const copy = clone(message);
  const holder = place === '' ? copy : itemAt(copy, place);
  const rebuilt = { [marker]: 0, ...holder };
  if (place === '') return JSON.stringify(rebuilt).replace(`"${marker}":0`, `"${key}":${payload}`);
  Object.keys(holder).forEach((k) => {
    delete holder[k];
  });
  Object.assign(holder, rebuilt);
  return JSON.stringify(copy).replace(`"${marker}":0`, `"${key}":${payload}`);
};

const kindsFor = (fields: readonly FieldInfo[], message: Message): MutationKind[] =>
  MUTATION_KINDS.filter((kind) => mutation(kind, fields, message) !== undefined);

/** Invalid bodies for `action`: a valid message with one mutation of any applicable kind. */
export const mutatedBody = (action: ActionName): fc.Arbitrary<MutatedBody> => {
  const fields = fieldsOf(MESSAGE_SCHEMAS[action]);
  return validMessage(action).chain((message) =>
    fc
      .constantFrom(...kindsFor(fields, message))
      .chain((kind) => mutation(kind, fields, message) ?? fc.constant(undefined as never)),
  );
};
