/**
 * What only the delete-user entry point does, against the simulator and moto: it deletes the
 * user. Its refusals, retries, a user already gone (ALREADY_ABSENT; ALREADY_DELETED after our
 * own lost response), EventBridge delivery and mixed batch run with every action's in the
 * every-action tables.
 */
import { describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { handlerHarness } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { seedUser } from './support/seed-data';

const { harness, handler } = handlerHarness('delete-user');

describe('delete-user over SQS', () => {
  it('deletes the user', async () => {
    // Prepare
    seedUser(harness, 'grace@example.com');
    const record = sqsRecord({ loginUserId: 'grace@example.com' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(harness.sim.state.listUsers()).toEqual([]);
    expect(await harness.deadLetters()).toEqual([]);
  });
});
