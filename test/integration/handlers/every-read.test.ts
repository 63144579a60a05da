/**
 * Scenarios that are the same for both reads (search-campaign-records, query-user-existence),
 * run over them against the real entry points, the simulator and moto. A read publishes its
 * answer on the result bus when triggered by SQS (or EventBridge, see every-action-delivery)
 * and returns it when invoked directly; "nothing found" is an answer, not a failure.
 */
import { describe, expect, it } from 'vitest';
import type { ActionName } from '../../../lambdas/actions';
import type { SimulatorOptions } from '../../../local/simulator';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { type Harness, harnessPerFile, LEADS_AND_CALLBACKS } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { byCity } from './support/messages';
import { seedCitizen, seedUser } from './support/seed-data';

const harness = harnessPerFile(LEADS_AND_CALLBACKS);

const GRACE = 'grace@example.com';
const NOT_FOUND_USER = {
  status: 'NOT_FOUND',
  exists: false,
  cloudConnectStatus: null,
  connectUserId: null,
};
/** What a seed gave back: a seeded record's id or a seeded user's backing-instance id. */
type Seeded = { readonly previewRecordID?: string; readonly connectUserId?: string | null };

interface PublishedCase {
  readonly action: ActionName;
  /** The answer, as the test name says it. */
  readonly answer: string;
  readonly seed?: (harness: Harness) => Seeded;
  readonly message: Readonly<Record<string, unknown>>;
  /** The published result, given what the seed gave back. */
  readonly result: (seeded: Seeded | undefined) => unknown;
}

const PUBLISHED: readonly PublishedCase[] = [
  {
    action: 'search-campaign-records',
    answer: 'the records found',
    seed: (h) => {
      const first = seedCitizen(h, 'c-1');
      seedCitizen(h, 'c-2', 'Paris');
      seedCitizen(h, 'c-3');
      return first;
    },
    message: { correlationId: 'crm-q-1', ...byCity('Berlin') },
    result: () => ({
      status: 'SUCCESS',
      records: [
        expect.objectContaining({ clientId: 'c-1' }),
        expect.objectContaining({ clientId: 'c-3' }),
      ],
    }),
  },
  {
    action: 'search-campaign-records',
    answer: 'NORECORDFOUND for an id lookup that matches nothing',
    message: { campaignName: 'Leads', clientId: 'c-none' },
    result: () => ({ status: 'NORECORDFOUND', records: [] }),
  },
  {
    action: 'query-user-existence',
    answer: 'a user in the platform and the backing instance',
    seed: (h) => seedUser(h, GRACE, true),
    message: { correlationId: 'hr-7', loginUserId: GRACE },
    result: (seeded) => ({
      status: 'SUCCESS',
      exists: true,
      cloudConnectStatus: 'EXISTS',
      connectUserId: seeded?.connectUserId,
    }),
  },
  {
    action: 'query-user-existence',
    answer: '"does not exist"',
    message: { loginUserId: 'nobody@example.com' },
    result: () => NOT_FOUND_USER,
  },
];

describe('every read over SQS', () => {
  it.each(PUBLISHED)(
    '$action publishes $answer with its correlation id and request: an answer, not a failure',
    async ({ action, seed, message, result }) => {
      // Prepare
      const handler = await harness.load(action);
      const seeded = seed?.(harness);
      const record = sqsRecord(message);

      // Act
      const response = await handler(sqsEvent(record), lambdaContext());

      // Assess
      expect(failedIds(response)).toEqual([]);
      const [event, ...others] = await harness.resultEvents(1);
      expect(others).toEqual([]);
      expect(event).toMatchObject({
        source: 'contact-center-sync',
        'detail-type': `${action}.result`,
      });
      expect(event?.detail).toEqual({
        correlationId: message.correlationId ?? record.messageId,
        request: message,
        result: result(seeded),
      });
      expect(await harness.deadLetters()).toEqual([]);
    },
  );
});

interface ReturnedCase {
  readonly action: ActionName;
  /** The answer, as the test name says it. */
  readonly answer: string;
  readonly seed?: (harness: Harness) => Seeded;
  readonly message: (seeded: Seeded | undefined) => unknown;
  /** The invocation's request id. @default the context's */
  readonly requestId?: string;
  readonly expected: (seeded: Seeded | undefined) => unknown;
}

const RETURNED: readonly ReturnedCase[] = [
  {
    action: 'search-campaign-records',
    answer: 'the typed result',
    seed: (h) => seedCitizen(h, 'c-1'),
    message: (seeded) => ({
      correlationId: 'ui-42',
      campaignName: 'Leads',
      previewRecordId: seeded?.previewRecordID,
    }),
    expected: (seeded) => ({
      correlationId: 'ui-42',
      code: 'SUCCESS',
      result: {
        status: 'SUCCESS',
        records: [
          expect.objectContaining({
            previewRecordID: seeded?.previewRecordID,
            clientId: 'c-1',
            workedState: 'NOTWORKED',
          }),
        ],
      },
    }),
  },
  {
    action: 'search-campaign-records',
    answer: 'NORECORDFOUND under the request id when the message has no correlation id',
    message: () => ({ campaignName: 'Leads', clientId: 'c-none' }),
    requestId: 'req-7',
    expected: () => ({
      correlationId: 'req-7',
      code: 'NORECORDFOUND',
      result: { status: 'NORECORDFOUND', records: [] },
    }),
  },
  {
    action: 'query-user-existence',
    answer: 'the typed answer',
    seed: (h) => seedUser(h, GRACE, false),
    message: () => ({ correlationId: 'ui-1', loginUserId: GRACE }),
    expected: () => ({
      correlationId: 'ui-1',
      code: 'SUCCESS',
      result: {
        status: 'SUCCESS',
        exists: true,
        cloudConnectStatus: 'NOT_FOUND',
        connectUserId: null,
      },
    }),
  },
  {
    action: 'query-user-existence',
    answer: 'NOT_FOUND under the request id when the message has no correlation id',
    message: () => ({ loginUserId: 'nobody@example.com' }),
    requestId: 'req-9',
    expected: () => ({ correlationId: 'req-9', code: 'NOT_FOUND', result: NOT_FOUND_USER }),
  },
];

describe('every read invoked directly', () => {
  it.each(RETURNED)(
    '$action returns $answer and publishes nothing',
    async ({ action, seed, message, requestId, expected }) => {
      // Prepare
      const handler = await harness.load(action);
      const seeded = seed?.(harness);

      // Act
      const result = await handler(message(seeded), lambdaContext({ awsRequestId: requestId }));

      // Assess
      expect(result).toEqual(expected(seeded));
      expect(await harness.resultEvents()).toEqual([]);
    },
  );
});

interface ThrownCase {
  readonly action: ActionName;
  /** The error, as the test name says it. */
  readonly error: string;
  /** The environment's user directory, when not the main simulator's SAML. @default SAML */
  readonly userDirectory?: SimulatorOptions['userDirectory'];
  readonly message: unknown;
  readonly thrown: Readonly<Record<string, unknown>>;
}

const THROWN: readonly ThrownCase[] = [
  {
    action: 'search-campaign-records',
    error: 'a permanent error for an invalid request',
    message: { campaignName: 'Leads' },
    thrown: { category: 'permanent', code: 'INVALID_MESSAGE' },
  },
  {
    // The runtime logs what is thrown, and the platform's text may quote record data.
    action: 'search-campaign-records',
    error: 'a retryable error when the platform keeps failing, without the platform text',
    message: { campaignName: 'Closed', clientId: 'c-1' },
    thrown: {
      category: 'retryable',
      code: 'FAILED',
      message: expect.stringMatching(
        /^FAILED: the platform answered FAILED; its error text stays out/,
      ),
    },
  },
  {
    action: 'query-user-existence',
    error: 'a permanent error for NOT_SUPPORTED (the internal user directory)',
    userDirectory: 'internal',
    message: { loginUserId: GRACE },
    thrown: { category: 'permanent', code: 'NOT_SUPPORTED' },
  },
];

describe('every read invoked directly, when it cannot answer', () => {
  it.each(THROWN)(
    '$action throws $error and dead-letters nothing',
    async ({ action, userDirectory, message, thrown }) => {
      // Prepare
      const platform = userDirectory
        ? await harness.startExtraSimulator({ userDirectory })
        : harness.sim;
      const handler = await harness.load(action, { API_BASE_URL: platform.baseUrl });

      // Act
      const invoking = handler(message, lambdaContext());

      // Assess
      await expect(invoking).rejects.toMatchObject({ name: 'ActionFailedError', ...thrown });
      expect(await harness.deadLetters()).toEqual([]);
    },
  );
});
