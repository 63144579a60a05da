/**
 * Messages every action dead-letters at once, run over the action list against the real entry
 * points, the simulator and moto: a message it cannot take (the reason names the field, never
 * a value), and a permanent answer of the platform (sent once, not retried; among them every
 * provisioning action on an environment with the internal user directory). A direct event it
 * cannot take is in direct-eventbridge. The simulated platform refuses bodies above 16 KiB
 * with HTTP 413 (the spec shows no size limit; a real platform has one).
 */
import { describe, expect, it } from 'vitest';
import { type ActionName, actionDefinition } from '../../../lambdas/actions';
import type { SimulatorOptions } from '../../../local/simulator';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { expectDeadLetter, expectDeadLettered } from './support/expectations';
import { type Harness, harnessPerFile } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { lead, newHire, stateChange, transfer } from './support/messages';
import { seedRecord, seedUser } from './support/seed-data';

const harness = harnessPerFile({ simulator: { maxBodyBytes: 16 * 1024 } });

const GRACE = 'grace@example.com';
/** Values of the record data in the add-or-update messages below. */
const RECORD_DATA = /Grace|0049 30/;

interface InvalidCase {
  readonly action: ActionName;
  /** What is wrong with the message, as the test name says it. */
  readonly flaw: string;
  /** An object is sent as its JSON, a string as is. */
  readonly message: unknown;
  /** @default 'INVALID_MESSAGE' */
  readonly code?: 'INVALID_MESSAGE' | 'INVALID_JSON';
  /** What the reason must say: the field it names. */
  readonly reason: string;
  /** Values in the message (personal data) the reason must not quote. @default none */
  readonly withheld?: RegExp;
  /** @default the SQS message id */
  readonly correlationId?: string;
}

const INVALID: readonly InvalidCase[] = [
  {
    action: 'add-or-update-campaign-record',
    flaw: 'no clientId (the platform would answer INVALIDCLIENTID)',
    message: { campaignName: 'Leads', previewRecordData: [{ key: 'Name', value: 'Grace Hopper' }] },
    reason: 'clientId: is required',
    withheld: RECORD_DATA,
  },
  {
    action: 'add-or-update-campaign-record',
    flaw: 'a data key equal to the default clientIdFieldName (INVALIDRECORDDATAKEY)',
    message: lead('c-1', { previewRecordData: [{ key: 'Id', value: 'c-1' }] }),
    reason: 'previewRecordData[0].key: data key "Id" is reserved',
    withheld: RECORD_DATA,
  },
  {
    action: 'add-or-update-campaign-record',
    flaw: 'a data key equal to a custom clientIdFieldName (INVALIDRECORDDATAKEY)',
    message: lead('c-1', {
      clientIdFieldName: 'CrmId',
      previewRecordData: [
        { key: 'Name', value: 'Grace Hopper' },
        { key: 'CrmId', value: 'c-1' },
      ],
    }),
    reason: 'previewRecordData[1].key: data key "CrmId" is reserved',
    withheld: RECORD_DATA,
  },
  {
    action: 'add-or-update-campaign-record',
    flaw: 'a phone key holding no E.164 number',
    message: lead('c-1', { previewRecordData: [{ key: 'HomePhone', value: '0049 30 1234567' }] }),
    reason: 'previewRecordData[0].value: key "HomePhone" is a phone field',
    withheld: RECORD_DATA,
  },
  {
    action: 'search-campaign-records',
    flaw: 'a search with neither id nor criteria',
    message: { campaignName: 'Leads', maxRecords: 10 },
    reason:
      'previewRecordData: a search needs previewRecordId, clientId, or at least one criterion',
  },
  {
    action: 'change-campaign-record-status',
    flaw: 'WORKED without nextEarliestWorkTimeUTC',
    message: stateChange('c-1', 'WORKED'),
    reason: 'nextEarliestWorkTimeUTC: is required when previewRecordStateEnum is WORKED',
  },
  {
    action: 'transfer-campaign-record',
    flaw: 'a message without transferToCampaign',
    message: transfer('c-1', { transferToCampaign: undefined }),
    reason: 'transferToCampaign: is required',
  },
  {
    // Sent as written: the dead letter keeps the body byte for byte, odd spacing included.
    action: 'delete-campaign-record',
    flaw: 'a message without a locator',
    message: '{"campaignName": "Leads",  "correlationId": "corr-no-id"}',
    reason: 'clientId: either previewRecordId or clientId is required',
    correlationId: 'corr-no-id',
  },
  {
    action: 'delete-campaign-record',
    flaw: 'a body that is not JSON',
    message: 'campaignName=Leads&clientId=c-1',
    code: 'INVALID_JSON',
    reason: 'not valid JSON',
  },
  {
    action: 'add-user',
    flaw: 'a malformed e-mail address',
    message: newHire(GRACE, { secondaryEmailAddr: 'grace at home' }),
    reason: 'secondaryEmailAddr: must be an e-mail address',
    withheld: /grace at home/,
  },
  {
    action: 'query-user-existence',
    flaw: 'a message with an unknown field',
    message: { loginUserId: GRACE, userName: 'grace' },
    reason: 'unknown field(s) "userName"',
  },
  {
    action: 'delete-user',
    flaw: 'a message without loginUserId',
    message: { correlationId: 'hr-leaver-1' },
    reason: 'loginUserId: is required',
    correlationId: 'hr-leaver-1',
  },
];

describe('every action, given a message it cannot take', () => {
  it.each(INVALID)(
    '$action dead-letters $flaw before calling the platform, naming the field',
    async ({ action, message, code, reason, withheld, correlationId }) => {
      // Prepare
      const handler = await harness.load(action);
      const record = sqsRecord(message);

      // Act
      const response = await handler(sqsEvent(record), lambdaContext());

      // Assess
      expect(failedIds(response)).toEqual([]);
      const [letter, ...others] = await harness.deadLetters(1);
      expect(others).toEqual([]);
      expectDeadLetter(letter, {
        source: record,
        action,
        errorCategory: 'permanent',
        errorCode: code ?? 'INVALID_MESSAGE',
        errorMessage: reason,
        correlationId,
      });
      // The reason names fields, never values (they are personal data).
      if (withheld) expect(letter?.attributes.errorMessage).not.toMatch(withheld);
      expect(harness.sim.stats.requests).toBe(0);
      expect(await harness.resultEvents()).toEqual([]);
    },
  );
});

/** About 40 KB of text items, legal for SQS but above what the platform accepts. */
const notes = (extra: Readonly<Record<string, string>> = {}) =>
  Array.from({ length: 10 }, (_, i) => ({ key: `Note${i}`, value: 'n'.repeat(4000), ...extra }));

interface RefusedCase {
  readonly action: ActionName;
  /** The platform's answer, as the test name says it. */
  readonly answer: string;
  /** The environment's user directory, when not the main simulator's SAML. @default SAML */
  readonly userDirectory?: SimulatorOptions['userDirectory'];
  /** What the platform holds before the message comes. */
  readonly seed?: (harness: Harness) => void;
  readonly message: unknown;
  /** The action's own requests the platform saw. @default 1 */
  readonly requests?: number;
  readonly code: string;
  readonly reason: string;
}

const REFUSED: readonly RefusedCase[] = [
  {
    action: 'add-or-update-campaign-record',
    answer: 'HTTP 413 (the body is too large)',
    message: lead('c-big', { previewRecordData: notes() }),
    code: 'HTTP_413',
    reason: 'addOrUpdateCampaignRecord: HTTP 413',
  },
  {
    action: 'search-campaign-records',
    answer: 'HTTP 413 (the body is too large)',
    message: { campaignName: 'Leads', previewRecordData: notes({ condition: 'CONTAINS' }) },
    code: 'HTTP_413',
    reason: 'searchPreviewCampaign: HTTP 413',
  },
  {
    // The record is there, and the destination holds another record with its clientId.
    action: 'transfer-campaign-record',
    answer: 'that the destination is occupied',
    seed: (h) => {
      seedRecord(h, 'c-1', 'Leads');
      seedRecord(h, 'c-1', 'Callbacks');
    },
    message: transfer('c-1'),
    code: 'TRANSFER_TARGET_OCCUPIED',
    reason: 'check both campaigns',
  },
  {
    // Looked up before the first add: someone else's user is never added over.
    action: 'add-user',
    answer: 'that the login id is taken by a user it did not provision',
    seed: (h) => seedUser(h, GRACE, false),
    message: newHire(GRACE),
    code: 'USER_EXISTS_NOT_OURS',
    reason: 'this integration did not create it',
    requests: 0,
  },
  {
    action: 'add-user',
    answer: 'INVALID_ARGUMENTS (a directory-linked environment needs primaryEmailAddr)',
    userDirectory: 'directory',
    message: newHire(GRACE, { primaryEmailAddr: undefined }),
    code: 'INVALID_ARGUMENTS',
    reason: 'add-user: result INVALID_ARGUMENTS: primaryEmailAddr is required',
  },
  // The provisioning actions on an environment with the internal user directory: refused at
  // the first request (an add of a user never seen looks first, with query-existence).
  {
    action: 'add-user',
    answer: 'NOT_SUPPORTED (the internal user directory)',
    userDirectory: 'internal',
    message: newHire(GRACE),
    requests: 0,
    code: 'NOT_SUPPORTED',
    reason: 'query-existence: result NOT_SUPPORTED',
  },
  {
    action: 'query-user-existence',
    answer: 'NOT_SUPPORTED (the internal user directory)',
    userDirectory: 'internal',
    message: { loginUserId: GRACE },
    code: 'NOT_SUPPORTED',
    reason: 'query-existence: result NOT_SUPPORTED',
  },
  {
    action: 'delete-user',
    answer: 'NOT_SUPPORTED (the internal user directory)',
    userDirectory: 'internal',
    message: { loginUserId: GRACE },
    code: 'NOT_SUPPORTED',
    reason: 'delete-user: result NOT_SUPPORTED',
  },
];

describe('every action, given a permanent answer of the platform', () => {
  it.each(REFUSED)(
    '$action dead-letters $answer at once, with its reason, publishing no result',
    async ({ action, userDirectory, seed, message, code, reason, requests }) => {
      // Prepare
      const platform = userDirectory
        ? await harness.startExtraSimulator({ userDirectory })
        : harness.sim;
      const handler = await harness.load(action, { API_BASE_URL: platform.baseUrl });
      seed?.(harness);
      const record = sqsRecord(message);

      // Act
      const response = await handler(sqsEvent(record), lambdaContext());

      // Assess
      expect(failedIds(response)).toEqual([]);
      await expectDeadLettered(harness, {
        source: record,
        action,
        errorCategory: 'permanent',
        errorCode: code,
        errorMessage: reason,
      });
      expect(platform.stats.endpoint(actionDefinition(action).endpoint).requests).toBe(
        requests ?? 1,
      );
      expect(await harness.resultEvents()).toEqual([]);
    },
  );
});
