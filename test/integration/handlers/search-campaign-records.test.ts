/**
 * What only the search-campaign-records entry point does, against the simulator and moto. A
 * read: its answer is published on the result bus (delivered by a moto rule to a queue) when
 * triggered by SQS or EventBridge, and returned when invoked directly. Only `Leads` and
 * `Callbacks` exist (`Closed` is answered FAILED). Its refusals, retries, EventBridge delivery
 * and mixed batch run with every action's in the every-action tables.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { outcomeLines } from './support/expectations';
import { handlerHarness, type LambdaEntry } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { byCity } from './support/messages';
import { seedCitizen } from './support/seed-data';

const ACTION = 'search-campaign-records';
const { harness, handler } = handlerHarness(ACTION, {
  simulator: { campaigns: ['Leads', 'Callbacks'] },
});

const seed = (clientId: string, city?: string) => seedCitizen(harness, clientId, city);

const clientIdsOf = (result: unknown): string[] =>
  ((result as { records?: { clientId: string }[] }).records ?? []).map((r) => r.clientId);

describe('search-campaign-records over SQS', () => {
  it('publishes the result event with the correlation id, the request and the records', async () => {
    // Prepare
    seed('c-1');
    seed('c-2', 'Paris');
    seed('c-3');
    const message = { correlationId: 'crm-q-1', ...byCity('Berlin') };
    const record = sqsRecord(message);

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    const [event, ...others] = await harness.resultEvents(1);
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      source: 'contact-center-sync',
      'detail-type': 'search-campaign-records.result',
      detail: { correlationId: 'crm-q-1', request: message, result: { status: 'SUCCESS' } },
    });
    expect(clientIdsOf(event?.detail.result)).toEqual(['c-1', 'c-3']);
    expect(await harness.deadLetters()).toEqual([]);
  });

  it('publishes NORECORDFOUND for an id lookup that matches nothing: an answer, not a failure', async () => {
    // Prepare
    const record = sqsRecord({ campaignName: 'Leads', clientId: 'c-none' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    const [event] = await harness.resultEvents(1);
    expect(event?.detail).toEqual({
      correlationId: record.messageId,
      request: { campaignName: 'Leads', clientId: 'c-none' },
      result: { status: 'NORECORDFOUND', records: [] },
    });
    expect(await harness.deadLetters()).toEqual([]);
  });
});

describe('search-campaign-records when the result cannot be published', () => {
  let unpublishable: LambdaEntry;

  beforeAll(async () => {
    unpublishable = await harness.load(ACTION, { RESULT_EVENT_BUS_NAME: 'no-such-result-bus' });
  });

  it('reports the record as a batch item failure, logging why', async () => {
    // Prepare
    seed('c-1');
    const record = sqsRecord({
      correlationId: 'corr-unpublished',
      campaignName: 'Leads',
      clientId: 'c-1',
    });

    // Act
    const response = await unpublishable(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([record.messageId]);
    expect(outcomeLines(harness).get('corr-unpublished')).toMatchObject({
      category: 'retryable',
      code: 'RESULT_PUBLISH_FAILED',
      reason: expect.stringContaining('the result event could not be published'),
    });
  });
});

describe('search-campaign-records invoked directly', () => {
  it('returns the typed result and publishes nothing', async () => {
    // Prepare
    const seeded = seed('c-1');

    // Act
    const result = await handler(
      { correlationId: 'ui-42', campaignName: 'Leads', previewRecordId: seeded.previewRecordID },
      lambdaContext(),
    );

    // Assess
    expect(result).toMatchObject({
      correlationId: 'ui-42',
      code: 'SUCCESS',
      result: {
        status: 'SUCCESS',
        records: [
          { previewRecordID: seeded.previewRecordID, clientId: 'c-1', workedState: 'NOTWORKED' },
        ],
      },
    });
    expect(await harness.resultEvents()).toEqual([]);
  });

  it('uses the request id as the correlation id when the message has none', async () => {
    // Act
    const result = await handler(
      { campaignName: 'Leads', clientId: 'c-none' },
      lambdaContext({ awsRequestId: 'req-7' }),
    );

    // Assess
    expect(result).toEqual({
      correlationId: 'req-7',
      code: 'NORECORDFOUND',
      result: { status: 'NORECORDFOUND', records: [] },
    });
  });

  it('throws a permanent error for an invalid request and dead-letters nothing', async () => {
    // Act
    const invoking = handler({ campaignName: 'Leads' }, lambdaContext());

    // Assess
    await expect(invoking).rejects.toMatchObject({
      name: 'ActionFailedError',
      category: 'permanent',
      code: 'INVALID_MESSAGE',
    });
    expect(await harness.deadLetters()).toEqual([]);
  });

  it('throws a retryable error when the platform keeps failing, without the platform text', async () => {
    // Act
    const invoking = handler({ campaignName: 'Closed', clientId: 'c-1' }, lambdaContext());

    // Assess: the runtime logs what is thrown, and the platform's text may quote record data
    await expect(invoking).rejects.toMatchObject({
      name: 'ActionFailedError',
      category: 'retryable',
      code: 'FAILED',
      message: expect.stringMatching(
        /^FAILED: the platform answered FAILED; its error text stays out/,
      ),
    });
    expect(await harness.deadLetters()).toEqual([]);
  });
});
