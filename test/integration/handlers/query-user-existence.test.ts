/**
 * The real query-user-existence entry point against the simulator and moto. A read: the answer
 * is published on the result bus (SQS, EventBridge) or returned (direct invocation). "User does
 * not exist" is an answer, not a failure. The mixed batch goes through a proxy that answers 503
 * for one user.
 */
import { describe, expect, it } from 'vitest';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import {
  expectDeadLetterCodes,
  expectDeadLettered,
  expectResultStatuses,
} from './support/expectations';
import { handlerBehindProxy, handlerHarness, MAX_RECEIVE_COUNT } from './support/handler-harness';
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

  it('dead-letters a message with an unknown field, naming it', async () => {
    // Prepare
    const record = sqsRecord({ loginUserId: 'grace@example.com', userName: 'grace' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_MESSAGE',
      errorMessage: 'unknown field(s) "userName"',
    });
    expect(await harness.resultEvents()).toEqual([]);
  });

  it('reports a retryable failure as a batch item failure and publishes nothing', async () => {
    // Prepare
    harness.sim.setFaults({ connectionResetRate: 1 });
    const record = sqsRecord({ loginUserId: 'grace@example.com' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([record.messageId]);
    expect(harness.sim.stats.endpoint('query-existence').requests).toBe(3);
    expect(await harness.resultEvents()).toEqual([]);
    expect(await harness.deadLetters()).toEqual([]);
  });
});

describe('query-user-existence over EventBridge', () => {
  it('publishes the answers of an SQS-wrapped and a direct event under their event ids', async () => {
    // Prepare
    seedUser(harness, 'grace@example.com', false);
    const wrapped = sqsRecord(
      eventBridgeEvent(ACTION, { loginUserId: 'grace@example.com' }, 'evt-1'),
    );
    const direct = eventBridgeEvent(ACTION, { loginUserId: 'ada@example.com' }, 'evt-2');

    // Act
    const batch = await handler(sqsEvent(wrapped), lambdaContext());
    const single = await handler(direct, lambdaContext());

    // Assess
    expect(failedIds(batch)).toEqual([]);
    expect(single).toBeUndefined();
    const events = await harness.resultEvents(2);
    expect(
      events.map((e) => [e.detail.correlationId, (e.detail.result as { exists: boolean }).exists]),
    ).toEqual([
      ['evt-1', true],
      ['evt-2', false],
    ]);
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

describe('query-user-existence mixed batch', () => {
  const { proxy, handler: proxied } = handlerBehindProxy(harness, ACTION);

  it('publishes every answer and reports exactly the retryable record as failed', async () => {
    // Prepare
    proxy.intercept((request) =>
      request.bodyText.includes('flaky')
        ? { status: 502, body: { message: 'Bad Gateway' } }
        : undefined,
    );
    seedUser(harness, 'grace@example.com', true);
    const records = [
      sqsRecord({ loginUserId: 'grace@example.com' }, { messageId: 'exists' }),
      sqsRecord({ loginUserId: 'nobody@example.com' }, { messageId: 'missing' }),
      sqsRecord({ loginUserId: '' }, { messageId: 'invalid' }),
      sqsRecord(eventBridgeEvent(ACTION, { loginUserId: 'grace@example.com' }, 'evt-w'), {
        messageId: 'wrapped',
      }),
      sqsRecord({ loginUserId: 'flaky@example.com' }, { messageId: 'flaky' }),
      sqsRecord(
        { loginUserId: 'flaky@example.com' },
        { messageId: 'last-try', receiveCount: MAX_RECEIVE_COUNT },
      ),
    ];

    // Act
    const response = await proxied(sqsEvent(...records), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual(['flaky']);
    await expectResultStatuses(harness, {
      'evt-w': 'SUCCESS',
      exists: 'SUCCESS',
      missing: 'NOT_FOUND',
    });
    await expectDeadLetterCodes(harness, { invalid: 'INVALID_MESSAGE', 'last-try': 'HTTP_502' });
  });
});
