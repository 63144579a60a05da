/**
 * Nothing is lost when the dead-letter queue itself cannot be reached: the record is reported
 * as a batch item failure (SQS redelivers it) and a log line says why, while the other records
 * of the batch stay processed.
 */
import { describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { motoEndpoint, TEST_ACCOUNT_ID, uniqueName } from '../../support/aws-clients';
import { handlerHarness } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { seedUser } from './support/seed-data';

const { harness, handler } = handlerHarness('delete-user', {
  env: {
    DEAD_LETTER_QUEUE_URL: `${motoEndpoint()}/${TEST_ACCOUNT_ID}/${uniqueName('missing-dlq')}`,
  },
});

describe('dead-letter queue unavailable', () => {
  it('reports the record that should be dead-lettered as failed, and logs why', async () => {
    // Prepare
    seedUser(harness, 'grace@example.com');
    const ok = sqsRecord({ loginUserId: 'grace@example.com' }, { messageId: 'ok' });
    const invalid = sqsRecord(
      { correlationId: 'corr-invalid', loginUserId: 42 },
      { messageId: 'invalid' },
    );

    // Act
    const response = await handler(sqsEvent(ok, invalid), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual(['invalid']);
    expect(harness.sim.state.findUser('grace@example.com')).toBeUndefined();
    const line = harness.output
      .jsonLines()
      .find((entry) => entry.message === 'message not dead-lettered');
    expect(line).toMatchObject({
      level: 'ERROR',
      action: 'delete-user',
      correlationId: 'corr-invalid',
      messageId: 'invalid',
      category: 'permanent',
      code: 'INVALID_MESSAGE',
      deadLetterError: expect.any(String),
    });
    expect(
      harness.output.jsonLines().some((entry) => entry.message === 'message dead-lettered'),
    ).toBe(false);
  });
});
