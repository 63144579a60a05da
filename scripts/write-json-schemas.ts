/**
 * Writes one JSON Schema per action to schemas/ so producers in other languages can
 * validate before they send. Cross-field rules (phone keys, reserved data key, WORKED needs a
 * time, …) cannot be expressed in JSON Schema; they are listed in each schema's description.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { ACTION_NAMES, MESSAGE_SCHEMAS } from '../lambdas/actions';

const CROSS_FIELD_RULES: Record<string, string> = {
  'add-or-update-campaign-record':
    'Also checked: keys containing "phone" (any case) hold E.164 numbers; keys ending in exactly _link/_button hold absolute http(s) URLs without spaces; ItemTimeZone holds an IANA zone name spelled exactly (e.g. Europe/Berlin, not +01:00 or europe/berlin); data keys are unique; no data key equals clientIdFieldName (default "Id").',
  'search-campaign-records':
    'Also checked: without previewRecordId or clientId, at least one criterion is required.',
  'change-campaign-record-status':
    'Also checked: previewRecordId or clientId is required; nextEarliestWorkTimeUTC is required when previewRecordStateEnum is WORKED; timeZone is an IANA zone name spelled exactly (e.g. Europe/Berlin).',
  'transfer-campaign-record':
    'Also checked: previewRecordId or clientId is required; transferToCampaign differs from campaignName; timeZone is an IANA zone name spelled exactly (e.g. Europe/Berlin).',
  'delete-campaign-record': 'Also checked: previewRecordId or clientId is required.',
};

export const jsonSchemaFor = (action: (typeof ACTION_NAMES)[number]): Record<string, unknown> => {
  const schema = z.toJSONSchema(MESSAGE_SCHEMAS[action], { io: 'input' }) as Record<
    string,
    unknown
  >;
  const rules = CROSS_FIELD_RULES[action];
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
