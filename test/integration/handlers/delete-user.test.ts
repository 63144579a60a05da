/**
 * The real delete-user entry point against the simulator and moto. A user already gone is
 * done (ALREADY_ABSENT; ALREADY_DELETED after our own lost response); the mixed batch goes through a proxy that answers 503 for one user.
 */
import { describe, expect, it } from 'vitest';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { expectDeadLetterCodes, expectDeadLettered, outcomeLines } from './support/expectations';
import { handlerBehindProxy, handlerHarness, MAX_RECEIVE_COUNT } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { seedUser } from './support/seed-data';

const ACTION = 'delete-user';
const { harness, handler } = handlerHarness(ACTION);

const userIds = () =>
  harness.sim.state
    .listUsers()
    .map((u) => u.loginUserId)
    .sort();

describe('delete-user over SQS', () => {
  it('deletes the user', async () => {
    // Prepare
    seedUser(harness, 'grace@example.com');
    const record = sqsRecord({ loginUserId: 'grace@example.com' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(userIds()).toEqual([]);
    expect(await harness.deadLetters()).toEqual([]);
  });

  it('dead-letters a message without loginUserId, naming it', async () => {
    // Prepare
    const record = sqsRecord({ correlationId: 'hr-leaver-1' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_MESSAGE',
      errorMessage: 'loginUserId: is required',
      correlationId: 'hr-leaver-1',
    });
  });
});

describe('delete-user idempotency', () => {
  it('treats a user already gone as done (ALREADY_ABSENT): the state it asks for holds', async () => {
    // Prepare
    const record = sqsRecord({ loginUserId: 'gone@example.com' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(await harness.deadLetters()).toEqual([]);
    expect(outcomeLines(harness).get(record.messageId)).toMatchObject({
      code: 'ALREADY_ABSENT',
      category: 'success',
    });
  });
});

describe('delete-user over EventBridge', () => {
  it('applies an SQS-wrapped event and a direct event', async () => {
    // Prepare
    seedUser(harness, 'ada@example.com');
    seedUser(harness, 'grace@example.com');
    const wrapped = sqsRecord(eventBridgeEvent(ACTION, { loginUserId: 'ada@example.com' }));
    const direct = eventBridgeEvent(ACTION, { loginUserId: 'grace@example.com' });

    // Act
    const batch = await handler(sqsEvent(wrapped), lambdaContext());
    const single = await handler(direct, lambdaContext());

    // Assess
    expect(failedIds(batch)).toEqual([]);
    expect(single).toBeUndefined();
    expect(userIds()).toEqual([]);
  });
});

describe('delete-user mixed batch', () => {
  const { proxy, handler: proxied } = handlerBehindProxy(harness, ACTION);

  it('reports exactly the retryable record as failed', async () => {
    // Prepare
    proxy.intercept((request) =>
      request.bodyText.includes('flaky') ? { status: 500, body: { message: 'oops' } } : undefined,
    );
    seedUser(harness, 'leaver@example.com');
    seedUser(harness, 'wrapped@example.com');
    const records = [
      sqsRecord({ loginUserId: 'leaver@example.com' }, { messageId: 'leaver' }),
      sqsRecord({ loginUserId: 'gone@example.com' }, { messageId: 'gone' }),
      sqsRecord({ loginUserId: 'x', extra: true }, { messageId: 'invalid' }),
      sqsRecord(eventBridgeEvent(ACTION, { loginUserId: 'wrapped@example.com' }), {
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
    await expectDeadLetterCodes(harness, { invalid: 'INVALID_MESSAGE', 'last-try': 'HTTP_500' });
    expect(userIds()).toEqual([]);
    expect(outcomeLines(harness).get('gone')?.code).toBe('ALREADY_ABSENT');
  });
});
