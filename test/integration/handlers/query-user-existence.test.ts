/**
 * What only the query-user-existence entry point does, against the simulator and moto. A read:
 * the answer is published on the result bus (SQS, EventBridge) or returned (direct invocation).
 * "User does not exist" is an answer, not a failure. Its refusals, retries, EventBridge
 * delivery and mixed batch run with every action's in the every-action tables.
 */
import { describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { handlerHarness } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { seedUser } from './support/seed-data';

const ACTION = 'query-user-existence';
const { harness, handler } = handlerHarness(ACTION);

describe('query-user-existence over SQS', () => {
  it('publishes the answer for a user in the platform and the backing instance', async () => {
    // Prepare
    const seeded = seedUser(harness, 'grace@example.com', true);
    const message = { correlationId: 'hr-7', loginUserId: 'grace@example.com' };

    // Act
    const response = await handler(sqsEvent(sqsRecord(message)), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    const [event, ...others] = await harness.resultEvents(1);
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      source: 'contact-center-sync',
      'detail-type': 'query-user-existence.result',
      detail: {
        correlationId: 'hr-7',
        request: message,
        result: {
          status: 'SUCCESS',
          exists: true,
          cloudConnectStatus: 'EXISTS',
          connectUserId: seeded.connectUserId,
        },
      },
    });
  });

  it('publishes "does not exist" as an answer, not a failure', async () => {
    // Prepare
    const record = sqsRecord({ loginUserId: 'nobody@example.com' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    const [event] = await harness.resultEvents(1);
    expect(event?.detail).toEqual({
      correlationId: record.messageId,
      request: { loginUserId: 'nobody@example.com' },
      result: { status: 'NOT_FOUND', exists: false, cloudConnectStatus: null, connectUserId: null },
    });
    expect(await harness.deadLetters()).toEqual([]);
  });
});

describe('query-user-existence invoked directly', () => {
  it('returns the typed answer and publishes nothing', async () => {
    // Prepare
    seedUser(harness, 'grace@example.com', false);

    // Act
    const result = await handler(
      { correlationId: 'ui-1', loginUserId: 'grace@example.com' },
      lambdaContext(),
    );

    // Assess
    expect(result).toEqual({
      correlationId: 'ui-1',
      code: 'SUCCESS',
      result: {
        status: 'SUCCESS',
        exists: true,
        cloudConnectStatus: 'NOT_FOUND',
        connectUserId: null,
      },
    });
    expect(await harness.resultEvents()).toEqual([]);
  });

  it('returns NOT_FOUND for a user that does not exist', async () => {
    // Act
    const result = await handler(
      { loginUserId: 'nobody@example.com' },
      lambdaContext({ awsRequestId: 'req-9' }),
    );

    // Assess
    expect(result).toEqual({
      correlationId: 'req-9',
      code: 'NOT_FOUND',
      result: { status: 'NOT_FOUND', exists: false, cloudConnectStatus: null, connectUserId: null },
    });
  });

  it('throws a permanent error for NOT_SUPPORTED and dead-letters nothing', async () => {
    // Prepare
    const internal = await harness.startExtraSimulator({ userDirectory: 'internal' });
    const internalHandler = await harness.load(ACTION, { API_BASE_URL: internal.baseUrl });

    // Act
    const invoking = internalHandler({ loginUserId: 'grace@example.com' }, lambdaContext());

    // Assess
    await expect(invoking).rejects.toMatchObject({
      name: 'ActionFailedError',
      category: 'permanent',
      code: 'NOT_SUPPORTED',
    });
    expect(await harness.deadLetters()).toEqual([]);
  });
});
