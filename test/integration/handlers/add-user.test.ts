/**
 * The real add-user entry point against the simulator and moto. The main simulator is a SAML
 * environment; two more play a directory-linked environment (primaryEmailAddr required, else
 * INVALID_ARGUMENTS) and one on the instance's internal directory (NOT_SUPPORTED). The mixed
 * batch goes through a proxy that answers 503 for one user, because the simulator's faults hit
 * every request alike.
 */
import { describe, expect, it } from 'vitest';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { expectDeadLetterCodes, expectDeadLettered, outcomeLines } from './support/expectations';
import { handlerBehindProxy, handlerHarness, MAX_RECEIVE_COUNT } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { seedUser } from './support/seed-data';

const ACTION = 'add-user';
const { harness, handler } = handlerHarness(ACTION);

const newHire = (loginUserId: string, extra: Record<string, unknown> = {}) => ({
  loginUserId,
  firstName: 'Grace',
  lastName: 'Hopper',
  primaryEmailAddr: loginUserId,
  userTemplateName: 'Agent',
  ...extra,
});

describe('add-user over SQS', () => {
  it('creates the user, in the backing instance too when asked', async () => {
    // Prepare
    const record = sqsRecord(newHire('grace@example.com', { createInCloudConnect: true }));

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(harness.sim.state.findUser('grace@example.com')).toMatchObject({
      inCloudConnect: true,
      userTemplateName: 'Agent',
    });
    expect(await harness.deadLetters()).toEqual([]);
  });

  it('dead-letters a malformed e-mail address, naming the field but not the value', async () => {
    // Prepare
    const record = sqsRecord(newHire('grace@example.com', { secondaryEmailAddr: 'grace at home' }));

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    const letter = await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_MESSAGE',
      errorMessage: 'secondaryEmailAddr: must be an e-mail address',
    });
    expect(letter?.attributes.errorMessage).not.toContain('grace at home');
    expect(harness.sim.stats.requests).toBe(0);
  });

  it('dead-letters INVALID_ARGUMENTS from a directory-linked environment without primaryEmailAddr', async () => {
    // Prepare
    const directory = await harness.startExtraSimulator({ userDirectory: 'directory' });
    const directoryHandler = await harness.load(ACTION, { API_BASE_URL: directory.baseUrl });
    const record = sqsRecord(newHire('grace@example.com', { primaryEmailAddr: undefined }));

    // Act
    const response = await directoryHandler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_ARGUMENTS',
      errorMessage: 'add-user: result INVALID_ARGUMENTS: primaryEmailAddr is required',
    });
    expect(directory.stats.endpoint('add-user').requests).toBe(1);
  });
});

describe('add-user idempotency', () => {
  it('treats a rejoin of a user it provisioned as done (ALREADY_EXISTS) after confirming it exists', async () => {
    // Prepare: the join applied earlier, then a newer join of the same person
    await handler(
      sqsEvent(sqsRecord(newHire('grace@example.com', { occurredAt: '2026-11-24T09:00:00.000Z' }))),
      lambdaContext(),
    );
    harness.sim.stats.reset();
    const record = sqsRecord(
      newHire('grace@example.com', { occurredAt: '2026-11-24T10:00:00.000Z' }),
    );

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(await harness.deadLetters()).toEqual([]);
    expect(harness.sim.stats.endpoint('query-existence').requests).toBe(1);
    expect(outcomeLines(harness).get(record.messageId)).toMatchObject({
      code: 'ALREADY_EXISTS',
      category: 'success',
    });
  });

  it('dead-letters an add-user for a login id it did not provision (USER_EXISTS_NOT_OURS)', async () => {
    // Prepare: someone else's user with this login id
    seedUser(harness, 'grace@example.com', false);
    const record = sqsRecord(newHire('grace@example.com'));

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'USER_EXISTS_NOT_OURS',
      errorMessage: 'this integration did not create it',
    });
  });

  it('dead-letters an existing user missing from the backing instance it asks for', async () => {
    // Prepare: the API cannot add an existing user to the backing instance.
    seedUser(harness, 'grace@example.com', false);
    const record = sqsRecord(newHire('grace@example.com', { createInCloudConnect: true }));

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'ALREADY_EXISTS',
      errorMessage: 'not in the backing contact-center instance',
    });
  });
});

describe('add-user over EventBridge', () => {
  it('applies an SQS-wrapped event and a direct event', async () => {
    // Prepare
    const wrapped = sqsRecord(eventBridgeEvent(ACTION, newHire('ada@example.com'), 'evt-1'));
    const direct = eventBridgeEvent(ACTION, newHire('grace@example.com'), 'evt-2');

    // Act
    const batch = await handler(sqsEvent(wrapped), lambdaContext());
    const single = await handler(direct, lambdaContext());

    // Assess
    expect(failedIds(batch)).toEqual([]);
    expect(single).toBeUndefined();
    expect(
      harness.sim.state
        .listUsers()
        .map((u) => u.loginUserId)
        .sort(),
    ).toEqual(['ada@example.com', 'grace@example.com']);
    expect(outcomeLines(harness).get('evt-1')?.messageId).toBe(wrapped.messageId);
  });

  it('dead-letters a direct event the schema rejects', async () => {
    // Prepare
    const event = eventBridgeEvent(ACTION, { loginUserId: 'grace@example.com' }, 'evt-bad');

    // Act
    await handler(event, lambdaContext());

    // Assess
    await expectDeadLettered(harness, {
      source: event,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_MESSAGE',
      errorMessage: 'firstName: is required',
    });
  });
});

describe('add-user mixed batch', () => {
  const { proxy, handler: proxied } = handlerBehindProxy(harness, ACTION);

  it('reports exactly the retryable record as failed', async () => {
    // Prepare: the platform is unavailable for requests about the two "flaky" users only.
    proxy.intercept((request) =>
      request.bodyText.includes('flaky')
        ? { status: 503, body: { message: 'Service Unavailable' } }
        : undefined,
    );
    seedUser(harness, 'existing@example.com', false);
    const records = [
      sqsRecord(newHire('new@example.com'), { messageId: 'new' }),
      sqsRecord(newHire('existing@example.com'), { messageId: 'existing' }),
      sqsRecord(newHire('bad@example.com', { userTemplateName: '' }), { messageId: 'invalid' }),
      sqsRecord(eventBridgeEvent(ACTION, newHire('wrapped@example.com')), { messageId: 'wrapped' }),
      sqsRecord(newHire('flaky-1@example.com'), { messageId: 'flaky' }),
      sqsRecord(newHire('flaky-2@example.com'), {
        messageId: 'last-try',
        receiveCount: MAX_RECEIVE_COUNT,
      }),
    ];

    // Act
    const response = await proxied(sqsEvent(...records), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual(['flaky']);
    const letters = await expectDeadLetterCodes(harness, {
      existing: 'USER_EXISTS_NOT_OURS',
      invalid: 'INVALID_MESSAGE',
      'last-try': 'HTTP_503',
    });
    expect(letters.get('last-try')?.attributes.errorCategory).toBe('retryable');
    expect(
      harness.sim.state
        .listUsers()
        .map((u) => u.loginUserId)
        .sort(),
    ).toEqual(['existing@example.com', 'new@example.com', 'wrapped@example.com']);
    expect(outcomeLines(harness).get('existing')?.code).toBe('USER_EXISTS_NOT_OURS');
  });
});
