/**
 * A producer in another language validates against schemas/ with a standard JSON Schema
 * 2020-12 validator; its verdict must be the runtime's. Every example event and a fuzz corpus
 * of valid and mutated messages go through both. The few rules JSON Schema cannot express are
 * named in the schemas' descriptions and here, each with the runtime reason that shows it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ACTION_NAMES,
  type ActionName,
  isActionName,
  parseMessage,
} from '../../../lambdas/actions';
import { jsonSchemaFor } from '../../../scripts/write-json-schemas';
import { validMessage } from '../../reliability/support/message-arbitraries';
import { mutatedBody } from '../../reliability/support/mutations';

const EXAMPLES_DIR = join(import.meta.dirname, '..', '..', '..', 'examples');

// Formats are checked by the patterns the schemas carry; strict mode refuses anything else odd.
// `required` inside `if`/`not` names properties defined one level up, which strictRequired cannot see.
const ajv = new Ajv2020({
  strict: true,
  strictRequired: false,
  validateFormats: false,
  allErrors: true,
});
const validators = new Map<ActionName, ValidateFunction>(
  ACTION_NAMES.map((action) => [action, ajv.compile(jsonSchemaFor(action))]),
);

const schemaAccepts = (action: ActionName, message: unknown): boolean =>
  (validators.get(action) as ValidateFunction)(message) === true;

/**
 * Rules JSON Schema cannot express (see the schemas' descriptions): the runtime refuses these
 * messages although the schema accepts them. Each is known by the runtime's reason.
 */
const RUNTIME_ONLY_RULES: readonly RegExp[] = [
  /duplicate data key/,
  /is reserved: it equals clientIdFieldName/,
  /must differ from campaignName/,
  /must not be "__proto__"/,
  /must hold an absolute http\(s\) URL/,
];

interface Verdicts {
  readonly schema: boolean;
  readonly runtime: boolean;
  readonly error?: string;
}

const verdicts = (action: ActionName, message: unknown): Verdicts => {
  const parsed = parseMessage(action, message);
  return {
    schema: schemaAccepts(action, message),
    runtime: parsed.success,
    ...(parsed.success ? {} : { error: parsed.error }),
  };
};

/** Agreement, or a disagreement a named runtime-only rule explains. */
const agreeOrExplained = (v: Verdicts): boolean =>
  v.schema === v.runtime ||
  (v.schema && !v.runtime && RUNTIME_ONLY_RULES.some((rule) => rule.test(v.error ?? '')));

const exampleEvents = (): { id: string; action: ActionName; detail: unknown }[] =>
  readdirSync(EXAMPLES_DIR)
    .filter((file) => /^\d\d-.*\.json$/.test(file))
    .flatMap((file) =>
      (JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as Record<string, unknown>[])
        .filter((event) => isActionName(String(event['detail-type'])))
        .map((event) => ({
          id: String((event.detail as { correlationId?: string })?.correlationId ?? file),
          action: event['detail-type'] as ActionName,
          detail: event.detail,
        })),
    );

describe('JSON Schemas and the runtime agree', () => {
  it('on every example event', () => {
    // Prepare
    const events = exampleEvents();

    // Act
    const disagreements = events
      .map((event) => ({ id: event.id, ...verdicts(event.action, event.detail) }))
      .filter((v) => v.schema !== v.runtime);

    // Assess
    expect(events.length).toBeGreaterThanOrEqual(30);
    expect(disagreements).toEqual([]);
  });

  it.each([
    'crm-0191-bad-phone',
    'crm-0192-bad-id-key',
    'crm-0193-bad-timezone',
    'crm-0290-worked-no-time',
  ])('refuses %s, as the runtime does', (id) => {
    // Prepare
    const event = exampleEvents().find((e) => e.id === id);

    // Act
    const v = event === undefined ? undefined : verdicts(event.action, event.detail);

    // Assess
    expect(v).toEqual(expect.objectContaining({ schema: false, runtime: false }));
  });

  it.each(ACTION_NAMES)('%s: accepts every valid message the runtime accepts', (action) => {
    fc.assert(
      fc.property(validMessage(action), (message) => {
        expect(verdicts(action, message)).toMatchObject({ schema: true, runtime: true });
      }),
      { numRuns: 150 },
    );
  });

  it.each(ACTION_NAMES)('%s: judges mutated messages as the runtime does', (action) => {
    fc.assert(
      fc.property(mutatedBody(action), (mutated) => {
        let message: unknown;
        try {
          message = JSON.parse(mutated.body);
        } catch {
          return; // Not JSON: no schema can judge it; the runtime says INVALID_JSON.
        }
        const v = verdicts(action, message);
        expect(agreeOrExplained(v), `${mutated.kind}: ${JSON.stringify(v)}`).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
