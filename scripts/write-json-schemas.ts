/**
 * Writes one JSON Schema per action to schemas/ so producers in other languages can
 * validate before they send with any JSON Schema 2020-12 validator. The runtime's content and
 * cross-field rules are added as `if`/`then`, patterns and enums; the few JSON Schema cannot
 * express are named in the schema's description (and held by a test comparing verdicts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { ACTION_NAMES, MESSAGE_SCHEMAS, SYSTEM_SEARCH_KEYS } from '../lambdas/actions';

type JsonSchema = Record<string, unknown>;

/** IANA zone names the runtime knows (Node's ICU), as an enum producers can check against. */
const ZONE_NAMES = [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])].sort();

const zoneName = (description: string): JsonSchema => ({
  type: 'string',
  maxLength: 64,
  enum: ZONE_NAMES,
  description: `${description} Not expressible in JSON Schema, so not listed here: older link names the tz database keeps (e.g. Asia/Calcutta) are also accepted.`,
});

/** JSON Schema's `if`/`then` (`then` is the standard's keyword here, not a promise). */
const ifThen = (condition: JsonSchema, consequence: JsonSchema): JsonSchema =>
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
  ({ if: condition, then: consequence });

/** previewRecordId or clientId names the record. */
const RECORD_LOCATOR: JsonSchema = {
  anyOf: [{ required: ['previewRecordId'] }, { required: ['clientId'] }],
};

/** The rules the runtime checks across fields or on a field's content, as JSON Schema can say them. */
const DATA_ITEM_RULES: JsonSchema[] = [
  // A key containing "phone" in any case is a click-to-dial number.
  ifThen(
    { properties: { key: { type: 'string', pattern: '[Pp][Hh][Oo][Nn][Ee]' } }, required: ['key'] },
    { properties: { value: { type: 'string', pattern: '^\\+[1-9][0-9]{1,14}$' } } },
  ),
  // A key ending in exactly _link or _button carries an absolute http(s) URL.
  ifThen(
    { properties: { key: { type: 'string', pattern: '(_link|_button)$' } }, required: ['key'] },
    {
      properties: {
        value: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+[^\\s]*$' },
      },
    },
  ),
  ifThen(
    { properties: { key: { type: 'string', const: 'ItemTimeZone' } }, required: ['key'] },
    { properties: { value: zoneName('ItemTimeZone holds an IANA zone name.') } },
  ),
];

const EXTRA_RULES: Partial<Record<(typeof ACTION_NAMES)[number], (schema: JsonSchema) => void>> = {
  'add-or-update-campaign-record': (schema) => {
    const data = (schema.properties as Record<string, JsonSchema>).previewRecordData as JsonSchema;
    const items = data.items as JsonSchema;
    items.allOf = DATA_ITEM_RULES;
    // Without clientIdFieldName the reserved key is "Id"; with one, it is that value, which a
    // JSON Schema cannot compare a sibling's value against.
    Object.assign(
      schema,
      ifThen(
        { not: { required: ['clientIdFieldName'] } },
        {
          properties: {
            previewRecordData: {
              type: 'array',
              items: {
                type: 'object',
                properties: { key: { type: 'string', not: { const: 'Id' } } },
              },
            },
          },
        },
      ),
    );
  },
  'search-campaign-records': (schema) => {
    const criteria = (schema.properties as Record<string, JsonSchema>)
      .previewRecordData as JsonSchema;
    const key = ((criteria.items as JsonSchema).properties as Record<string, JsonSchema>)
      .key as JsonSchema;
    // The platform answers an unknown sys_* key with FAILED.
    Object.assign(
      key,
      ifThen({ type: 'string', pattern: '^sys_' }, { enum: [...SYSTEM_SEARCH_KEYS] }),
    );
    schema.anyOf = [
      ...(RECORD_LOCATOR.anyOf as JsonSchema[]),
      {
        required: ['previewRecordData'],
        properties: { previewRecordData: { type: 'array', minItems: 1 } },
      },
    ];
  },
  'change-campaign-record-status': (schema) => {
    schema.allOf = [
      RECORD_LOCATOR,
      ifThen(
        { properties: { previewRecordStateEnum: { type: 'string', const: 'WORKED' } } },
        { required: ['nextEarliestWorkTimeUTC'] },
      ),
    ];
    (schema.properties as Record<string, JsonSchema>).timeZone = zoneName('IANA zone name.');
  },
  'transfer-campaign-record': (schema) => {
    Object.assign(schema, RECORD_LOCATOR);
    (schema.properties as Record<string, JsonSchema>).timeZone = zoneName('IANA zone name.');
  },
  'delete-campaign-record': (schema) => {
    Object.assign(schema, RECORD_LOCATOR);
  },
};

/** What the schema cannot say, told in its description. */
const NOT_EXPRESSIBLE: Record<string, string> = {
  'add-or-update-campaign-record':
    'Not expressible in JSON Schema, checked at runtime: data keys are unique; no data key equals the clientIdFieldName a message sets (the default "Id" is checked here); a _link/_button value must also parse as a URL.',
  'transfer-campaign-record':
    'Not expressible in JSON Schema, checked at runtime: transferToCampaign differs from campaignName.',
};

export const jsonSchemaFor = (action: (typeof ACTION_NAMES)[number]): JsonSchema => {
  const schema = z.toJSONSchema(MESSAGE_SCHEMAS[action], { io: 'input' }) as JsonSchema;
  EXTRA_RULES[action]?.(schema);
  const rules = NOT_EXPRESSIBLE[action];
  return {
    ...schema,
    $id: `contact-center-sync/${action}.schema.json`,
    title: action,
    description: `Body of an SQS message or detail of an EventBridge event (detail-type "${action}").${rules ? ` ${rules}` : ''}`,
  };
};

const isMain =
  process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) {
  const dir = join(import.meta.dirname, '..', 'schemas');
  mkdirSync(dir, { recursive: true });
  for (const action of ACTION_NAMES) {
    writeFileSync(
      join(dir, `${action}.schema.json`),
      `${JSON.stringify(jsonSchemaFor(action), null, 2)}\n`,
    );
    console.log(`wrote schemas/${action}.schema.json`);
  }
}
