/**
 * What only the add-user entry point does, against the simulator and moto: creating a user in
 * the backing instance, and taking a rejoin of a user it provisioned as done. Its refusals
 * (a taken login id, a directory-linked environment), retries, EventBridge delivery and mixed
 * batch run with every action's in the every-action tables.
 */
import { describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { outcomeLines } from './support/expectations';
import { handlerHarness } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { newHire } from './support/messages';

const { harness, handler } = handlerHarness('add-user');

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
});

describe('add-user idempotency', () => {
  it('treats a rejoin of a user it provisioned as done (ALREADY_EXISTS), asking the platform again', async () => {
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

    // Assess: asked again (the user may have been removed outside since), not looked up first
    expect(failedIds(response)).toEqual([]);
    expect(await harness.deadLetters()).toEqual([]);
    expect(harness.sim.stats.endpoint('add-user').requests).toBe(1);
    expect(harness.sim.stats.endpoint('query-existence').requests).toBe(0);
    expect(outcomeLines(harness).get(record.messageId)).toMatchObject({
      code: 'ALREADY_EXISTS',
      category: 'success',
    });
  });

  it('dead-letters a rejoin that asks for the backing instance its user is not in', async () => {
    // Prepare: the join applied without the backing instance, then one that asks for it
    await handler(
      sqsEvent(sqsRecord(newHire('ada@example.com', { occurredAt: '2026-11-24T09:00:00.000Z' }))),
      lambdaContext(),
    );
    const record = sqsRecord(
      newHire('ada@example.com', {
        occurredAt: '2026-11-24T10:00:00.000Z',
        createInCloudConnect: true,
      }),
    );

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess: the API cannot add an existing user to the backing instance
    expect(failedIds(response)).toEqual([]);
    const [letter] = await harness.deadLetters(1);
    expect(letter?.attributes).toMatchObject({
      errorCategory: 'permanent',
      errorCode: 'ALREADY_EXISTS',
    });
    expect(letter?.attributes.errorMessage).toContain('not in the backing contact-center instance');
  });
});
