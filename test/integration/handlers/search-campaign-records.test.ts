/**
 * What only the search-campaign-records entry point does, against the simulator and moto: a
 * read whose answer cannot be published has not done its job. What it shares with the other
 * read runs in every-read; its refusals, retries, EventBridge delivery and mixed batch run
 * with every action's in the every-action tables.
 */
import { describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { outcomeLines } from './support/expectations';
import { handlerHarness } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { seedRecord } from './support/seed-data';

const { harness, handler: unpublishable } = handlerHarness('search-campaign-records', {
  env: { RESULT_EVENT_BUS_NAME: 'no-such-result-bus' },
});

describe('search-campaign-records when the result cannot be published', () => {
  it('reports the record as a batch item failure, logging why', async () => {
    // Prepare
    seedRecord(harness, 'c-1');
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
