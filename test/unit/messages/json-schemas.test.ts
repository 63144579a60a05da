import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTION_NAMES } from '../../../lambdas/actions';
import { jsonSchemaFor } from '../../../scripts/write-json-schemas';

const SCHEMA_DIR = join(import.meta.dirname, '..', '..', '..', 'schemas');

describe('committed JSON Schemas (schemas/*.schema.json)', () => {
  it.each(ACTION_NAMES)('%s matches the zod schema', (action) => {
    // Prepare
    const file = `${action}.schema.json`;
    const expected = `${JSON.stringify(jsonSchemaFor(action), null, 2)}\n`;

    // Act
    const committed = readFileSync(join(SCHEMA_DIR, file), 'utf8');

    // Assess
    expect(committed, `schemas/${file} is out of date: run \`npm run schemas\` and commit`).toBe(
      expected,
    );
  });

  it('holds no schema for an action that does not exist', () => {
    // Prepare
    const expected = ACTION_NAMES.map((action) => `${action}.schema.json`).sort();

    // Act
    const files = readdirSync(SCHEMA_DIR).sort();

    // Assess
    expect(files, 'schemas/ holds stale files: remove them and run `npm run schemas`').toEqual(
      expected,
    );
  });

  it('keeps the contract strict: unknown fields are refused by the JSON Schema too', () => {
    // Prepare
    const schemas = ACTION_NAMES.map((action) => jsonSchemaFor(action));

    // Act
    const additional = schemas.map((schema) => schema.additionalProperties);

    // Assess
    expect(additional).toEqual(ACTION_NAMES.map(() => false));
  });
});
