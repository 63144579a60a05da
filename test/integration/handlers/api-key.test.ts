/**
 * The API key as the real entry point reads it: from the secret in moto, through Powertools'
 * SecretsProvider with the configured max age. GetSecretValue calls are counted on the wire by
 * the harness's proxy in front of moto's Secrets Manager. Rotation changes the secret in moto
 * and the key the simulator accepts: the next call gets 401, the key is re-read once, and the
 * call succeeds.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../testkit';
import { expectDeadLettered, outcomeLines } from './support/expectations';
import { harnessPerFile, MAX_RECEIVE_COUNT } from './support/handler-harness';
import { failedIds } from './support/lambda-events';
import { seedUser } from './support/seed-data';

const harness = harnessPerFile();

afterEach(() => {
  vi.useRealTimers();
});

const batchOf = (count: number, prefix: string) =>
  sqsEvent(
    ...Array.from({ length: count }, (_, i) =>
      sqsRecord({ loginUserId: `${prefix}-${i}@example.com` }, { messageId: `${prefix}-${i}` }),
    ),
  );

/** GetSecretValue calls made while `run` runs. */
const secretReadsDuring = async (run: () => Promise<unknown>): Promise<number> => {
  const before = harness.getSecretValueCalls();
  await run();
  return harness.getSecretValueCalls() - before;
};

describe('API key reads', () => {
  it('reads the key once for a batch of 10, not once per record', async () => {
    // Prepare
    const handler = await harness.load('delete-user');
    let response: unknown;

    // Act
    const reads = await secretReadsDuring(async () => {
      response = await handler(batchOf(10, 'cold'), lambdaContext());
    });

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(reads).toBe(1);
    expect(harness.sim.stats.endpoint('delete-user').requests).toBe(10);
  });

  it('serves a warm invocation within the max age from cache', async () => {
    // Prepare
    const handler = await harness.load('delete-user');
    await handler(batchOf(10, 'first'), lambdaContext());

    // Act
    const reads = await secretReadsDuring(() => handler(batchOf(10, 'warm'), lambdaContext()));

    // Assess
    expect(reads).toBe(0);
  });

  it('reads the key again, once per invocation, after API_KEY_MAX_AGE_SECONDS', async () => {
    // Prepare
    vi.useFakeTimers({ toFake: ['Date'] });
    const handler = await harness.load('delete-user', { API_KEY_MAX_AGE_SECONDS: '60' });
    const counts: number[] = [];

    // Act
    counts.push(await secretReadsDuring(() => handler(batchOf(10, 'a'), lambdaContext())));
    vi.setSystemTime(Date.now() + 61_000);
    counts.push(await secretReadsDuring(() => handler(batchOf(10, 'b'), lambdaContext())));
    vi.setSystemTime(Date.now() + 30_000);
    counts.push(await secretReadsDuring(() => handler(batchOf(10, 'c'), lambdaContext())));

    // Assess
    expect(counts).toEqual([1, 1, 0]);
  });
});

describe('API key rotation', () => {
  it('gets 401 with the old key, re-reads the secret once and succeeds', async () => {
    // Prepare
    const handler = await harness.load('delete-user');
    await handler(batchOf(1, 'before'), lambdaContext());
    await harness.rotateApiKey('sk-rotated-9d3e6b1a7c52');
    harness.sim.stats.reset();
    seedUser(harness, 'grace@example.com');
    let response: unknown;

    // Act
    const reads = await secretReadsDuring(async () => {
      response = await handler(
        sqsEvent(sqsRecord({ loginUserId: 'grace@example.com' })),
        lambdaContext(),
      );
    });

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(reads).toBe(1);
    expect(harness.sim.stats.unauthorized).toBe(1);
    expect(harness.sim.stats.endpoint('delete-user').httpStatus).toEqual({ '401': 1, '200': 1 });
    expect(harness.sim.state.findUser('grace@example.com')).toBeUndefined();
  });

  it('shares one re-read between all records of a batch that got 401', async () => {
    // Prepare: a read, so that no ledger round trip spreads the records' first requests apart
    const handler = await harness.load('query-user-existence');
    await handler(batchOf(1, 'before'), lambdaContext());
    await harness.rotateApiKey('sk-rotated-5b8f0e2d4a61');
    harness.sim.stats.reset();
    let response: unknown;

    // Act
    const reads = await secretReadsDuring(async () => {
      response = await handler(batchOf(10, 'rotated'), lambdaContext());
    });
    const nextReads = await secretReadsDuring(() => handler(batchOf(10, 'next'), lambdaContext()));

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(reads).toBe(1);
    expect(harness.sim.stats.unauthorized).toBe(10);
    expect(harness.sim.stats.endpoint('query-existence').httpStatus['200']).toBe(20);
    expect(nextReads).toBe(0);
  });

  it('keeps a record retryable when the platform still rejects the re-read key', async () => {
    // Prepare: the platform rotated, the secret not yet.
    const handler = await harness.load('delete-user');
    await handler(batchOf(1, 'before'), lambdaContext());
    harness.sim.setApiKey('sk-platform-only-2c4e6a8b0d');
    const record = sqsRecord({ loginUserId: 'grace@example.com' });

    // Act
    const response = await handler(sqsEvent(record), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual([record.messageId]);
    expect(harness.sim.stats.endpoint('delete-user').httpStatus['401']).toBe(2);
    expect(outcomeLines(harness).get(record.messageId)).toMatchObject({
      code: 'HTTP_401',
      category: 'retryable',
      attempts: 2,
    });
  });
});

describe('API key unavailable', () => {
  it('retries records when the secret cannot be read, and dead-letters on the last receive', async () => {
    // Prepare
    const handler = await harness.load('delete-user', { API_KEY_SECRET_ID: 'no-such-secret' });
    const retried = sqsRecord({ loginUserId: 'a@example.com' }, { messageId: 'retried' });
    const last = sqsRecord(
      { loginUserId: 'b@example.com' },
      { messageId: 'last', receiveCount: MAX_RECEIVE_COUNT },
    );

    // Act
    const response = await handler(sqsEvent(retried, last), lambdaContext());

    // Assess
    expect(failedIds(response)).toEqual(['retried']);
    await expectDeadLettered(harness, {
      source: last,
      action: 'delete-user',
      errorCategory: 'retryable',
      errorCode: 'API_KEY_UNAVAILABLE',
      errorMessage: 'API key secret "no-such-secret" not found',
    });
    expect(harness.sim.stats.requests).toBe(0);
    const warning = harness.output
      .jsonLines()
      .find((line) => line.messageId === 'retried' && line.code === 'API_KEY_UNAVAILABLE');
    expect(warning).toMatchObject({ level: 'WARN', action: 'delete-user', category: 'retryable' });
  });
});
