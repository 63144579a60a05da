import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deleteCampaignRecord } from '../../../lambdas/actions/delete-campaign-record';
import { deleteUser } from '../../../lambdas/actions/delete-user';
import type { AttemptInfo } from '../../../lambdas/core/platform/platform-caller';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import { InMemoryApiKeySource } from '../../../testkit';
import {
  type CaptureServer,
  type Reply,
  type Responder,
  startCaptureServer,
} from '../../support/capture-server';
import { named } from '../support/named-rows';
import { instantClock, realtimeEnvelope, settingsFor } from './client-fixtures';

let server: CaptureServer;

beforeAll(async () => {
  server = await startCaptureServer();
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
});

const ok: Reply = { status: 200, body: realtimeEnvelope('SUCCESS') };
const status = (code: number, headers: Record<string, string> = {}): Reply => ({
  status: code,
  headers,
  body: { error: `status ${code}` },
});

/** Answers the scripted replies in order, then `ok`. */
const script = (...replies: Reply[]) => {
  server.respond((_request, index) => replies[index] ?? ok);
};

/**
 * Accepts only the rotated key 'new-api-key' and answers 401 to any other; the request at
 * `busyAt` gets a 503 whatever key it carries, so a transient failure lands mid-rotation.
 */
const acceptsOnlyNewKeyBusyAt =
  (busyAt: number): Responder =>
  (request, index) =>
    index === busyAt
      ? status(503)
      : request.headers['x-sc-company-api-key'] === 'new-api-key'
        ? ok
        : status(401);

const sentKeys = () => server.requests.map((r) => r.headers['x-sc-company-api-key']);

const setup = (http: Partial<{ maxAttempts: number; requestTimeoutMs: number }> = {}) => {
  const keys = new InMemoryApiKeySource('old-api-key');
  const clock = instantClock();
  const attempts: AttemptInfo[] = [];
  const settings = settingsFor(server.baseUrl);
  // One caller serves both services; the observer sees every request.
  const platform = new PlatformCaller(
    settings,
    keys,
    { maxAttempts: 3, ...http },
    { ...clock.deps, observer: { attempt: (a: AttemptInfo) => attempts.push(a) } },
  );
  const del = () => platform.send(deleteCampaignRecord, { campaignName: 'Leads', clientId: 'c-1' });
  return { keys, clock, attempts, realtime: platform, provisioning: platform, del };
};

describe('transient retries', () => {
  it('retries 5xx with full-jitter backoff and succeeds', async () => {
    // Prepare
    const { clock, attempts, del } = setup();
    script(status(503), status(500));

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS', attempts: 3 });
    expect(clock.sleeps).toEqual([50, 100]);
    expect(attempts.map((a) => [a.attempt, a.code, a.httpStatus, a.category])).toEqual([
      [1, 'HTTP_503', 503, 'retryable'],
      [2, 'HTTP_500', 500, 'retryable'],
      [3, 'SUCCESS', 200, 'success'],
    ]);
    expect(attempts.every((a) => a.endpoint === 'deleteRecordFromCampaign')).toBe(true);
  });

  it('returns the last retryable outcome after maxAttempts', async () => {
    // Prepare
    const { del } = setup();
    script(status(503), status(502), status(504), ok);

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'HTTP_504', attempts: 3 });
    expect(outcome.message).toBe('deleteRecordFromCampaign: HTTP 504: status 504');
    expect(server.requests).toHaveLength(3);
  });

  it('retries HTTP 200 FAILED a bounded number of times', async () => {
    // Prepare
    const { del } = setup({ maxAttempts: 2 });
    const failed: Reply = { status: 200, body: realtimeEnvelope('FAILED', 'backend busy') };
    script(failed, failed, ok);

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'FAILED', attempts: 2 });
  });

  it('does not retry a permanent failure', async () => {
    // Prepare
    const { clock, del } = setup();
    script(status(400));

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({ category: 'permanent', code: 'HTTP_400', attempts: 1 });
    expect(clock.sleeps).toEqual([]);
  });

  it('sleeps a short Retry-After in process, and hands a long one back on the outcome instead of sleeping', async () => {
    // Prepare
    const { clock, del } = setup();
    script(status(429, { 'retry-after': '1' }), status(429, { 'retry-after': '60' }));

    // Act
    const outcome = await del();

    // Assess: the 60 s wait becomes the message's visibility, not a sleep in the function.
    expect(outcome).toMatchObject({
      category: 'retryable',
      httpStatus: 429,
      attempts: 2,
      retryAfterMs: 60_000,
    });
    expect(clock.sleeps).toEqual([1000]);
  });

  it('retries a reset connection', async () => {
    // Prepare
    const { del } = setup();
    script({ destroy: true });

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({ category: 'success', attempts: 2 });
  });

  it('gives up on requests that time out', async () => {
    // Prepare
    const { del } = setup({ maxAttempts: 2, requestTimeoutMs: 40 });
    script({ hang: true }, { hang: true });

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'TIMEOUT', attempts: 2 });
    expect(outcome.message).toBe(
      'deleteRecordFromCampaign: timeout: no complete response within 40 ms',
    );
  });
});

describe('a write that may have landed', () => {
  it('stops at its first unanswered attempt with stopAtDoubt, so its caller reads before repeating it', async () => {
    // Prepare
    const { realtime } = setup({ maxAttempts: 3, requestTimeoutMs: 40 });
    script({ hang: true });

    // Act
    const outcome = await realtime.send(
      deleteCampaignRecord,
      { campaignName: 'Leads', clientId: 'c-1' },
      { stopAtDoubt: true },
    );

    // Assess: one request, in doubt, and no later attempt to mark afterDoubt
    expect(outcome).toMatchObject({ category: 'retryable', code: 'TIMEOUT', attempts: 1 });
    expect(outcome.afterDoubt).toBeUndefined();
    expect(server.requests).toHaveLength(1);
  });

  it('without it, retries, and marks a later plain failure as coming after a doubt', async () => {
    // Prepare
    const { del } = setup({ maxAttempts: 2, requestTimeoutMs: 40 });
    script({ hang: true }, status(429));

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', attempts: 2, afterDoubt: true });
    expect(server.requests).toHaveLength(2);
  });
});

describe('deadline', () => {
  // The first attempt fails with 503; a retry waits 50 ms and may take the full 1000 ms timeout.
  it.each(
    named([
      {
        name: 'does not retry when the backoff and a full request would pass the deadline',
        timeLeft: 1049,
        expected: { category: 'retryable', code: 'HTTP_503', attempts: 1 },
        sleeps: [],
      },
      {
        name: 'retries when exactly enough time is left',
        timeLeft: 1050,
        expected: { category: 'success', attempts: 2 },
        sleeps: [50],
      },
    ]),
  )('%s', async (_name, { timeLeft, expected, sleeps }) => {
    // Prepare
    const { clock, realtime } = setup({ requestTimeoutMs: 1000 });
    script(status(503));

    // Act
    const outcome = await realtime.send(
      deleteCampaignRecord,
      { campaignName: 'Leads', clientId: 'c-1' },
      { deadline: clock.now() + timeLeft },
    );

    // Assess
    expect(outcome).toMatchObject(expected);
    expect(clock.sleeps).toEqual(sleeps);
  });

  it('sends nothing when the deadline has already passed', async () => {
    // Prepare
    const { clock, realtime } = setup();

    // Act
    const outcome = await realtime.send(
      deleteCampaignRecord,
      { campaignName: 'Leads', clientId: 'c-1' },
      { deadline: clock.now() },
    );

    // Assess
    expect(outcome).toMatchObject({
      category: 'retryable',
      code: 'DEADLINE_EXCEEDED',
      attempts: 0,
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe('401 and key refresh', () => {
  // A 403 is treated as a 401: during a rotation the platform may reject the old key either way.
  it.each([401, 403])('refreshes the key once after HTTP %i and retries at once', async (code) => {
    // Prepare
    const { keys, clock, attempts, del } = setup();
    keys.storedKey = 'new-api-key';
    server.respond((request) =>
      request.headers['x-sc-company-api-key'] === 'new-api-key' ? ok : status(code),
    );

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS', attempts: 2 });
    expect(keys.refreshCalls).toEqual(['old-api-key']);
    expect(sentKeys()).toEqual(['old-api-key', 'new-api-key']);
    expect(clock.sleeps).toEqual([]);
    expect(attempts.map((a) => a.code)).toEqual([`HTTP_${code}`, 'SUCCESS']);
  });

  it.each([401, 403])(
    'returns retryable HTTP_%i when the refreshed key is rejected too',
    async (code) => {
      // Prepare
      const { keys, del } = setup();
      keys.storedKey = 'still-wrong';
      server.respond(() => status(code));

      // Act
      const outcome = await del();

      // Assess
      expect(outcome).toMatchObject({ category: 'retryable', code: `HTTP_${code}`, attempts: 2 });
      expect(keys.refreshCalls).toHaveLength(1);
      expect(sentKeys()).toEqual(['old-api-key', 'still-wrong']);
    },
  );

  it('does not count the refresh retry as a transient attempt', async () => {
    // Prepare: attempt 1 gets 503; attempt 2 gets 401, refreshes, and succeeds.
    const { keys, del } = setup({ maxAttempts: 2 });
    keys.storedKey = 'new-api-key';
    server.respond(acceptsOnlyNewKeyBusyAt(0));

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({ category: 'success', attempts: 3 });
    expect(sentKeys()).toEqual(['old-api-key', 'old-api-key', 'new-api-key']);
  });

  it('refreshes at most once per call', async () => {
    // Prepare: 401 → refresh → 503 → backoff → 401 again.
    const { keys, del } = setup();
    keys.storedKey = 'new-api-key';
    script(status(401), status(503), status(401), ok);

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({ category: 'retryable', code: 'HTTP_401', attempts: 3 });
    expect(keys.refreshCalls).toEqual(['old-api-key']);
  });

  it('treats provisioning result UNAUTHORIZED like a 401', async () => {
    // Prepare
    const { keys, provisioning } = setup();
    keys.storedKey = 'new-api-key';
    server.respond((request) =>
      request.headers['x-sc-company-api-key'] === 'new-api-key'
        ? { status: 200, body: { result: 'SUCCESS', message: 'deleted' } }
        : { status: 200, body: { result: 'UNAUTHORIZED', message: 'key expired' } },
    );

    // Act
    const outcome = await provisioning.send(deleteUser, { loginUserId: 'ada@example.com' });

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'SUCCESS', attempts: 2 });
    expect(keys.refreshCalls).toEqual(['old-api-key']);
  });

  it('reports a key source failure as retryable API_KEY_UNAVAILABLE without calling', async () => {
    // Prepare
    const { keys, del } = setup();
    keys.failWith = new Error('Secrets Manager throttled');

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({
      category: 'retryable',
      code: 'API_KEY_UNAVAILABLE',
      attempts: 0,
      message:
        'deleteRecordFromCampaign: could not read the API key: Error: Secrets Manager throttled',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('reports a failed refresh as API_KEY_UNAVAILABLE after the 401', async () => {
    // Prepare
    const { keys, del } = setup();
    server.respond(() => {
      keys.failWith = new Error('Secrets Manager unavailable');
      return status(401);
    });

    // Act
    const outcome = await del();

    // Assess
    expect(outcome).toMatchObject({
      category: 'retryable',
      code: 'API_KEY_UNAVAILABLE',
      attempts: 1,
    });
  });
});

describe('hygiene', () => {
  it('never puts the API key into an outcome message, even when the platform echoes it', async () => {
    // Prepare
    const { del } = setup();
    server.respond((request) => ({
      status: 403,
      body: { error: `key ${String(request.headers['x-sc-company-api-key'])} is not allowed` },
    }));

    // Act
    const outcome = await del();

    // Assess
    expect(outcome.message).toBe(
      'deleteRecordFromCampaign: HTTP 403: key [redacted] is not allowed',
    );
    expect(JSON.stringify(outcome)).not.toContain('old-api-key');
  });

  it('survives an observer that throws', async () => {
    // Prepare
    const realtime = new PlatformCaller(
      settingsFor(server.baseUrl),
      new InMemoryApiKeySource('old-api-key'),
      { maxAttempts: 3 },
      {
        ...instantClock().deps,
        observer: {
          attempt: () => {
            throw new Error('metrics down');
          },
        },
      },
    );
    script(ok);

    // Act
    const outcome = await realtime.send(deleteCampaignRecord, {
      campaignName: 'Leads',
      clientId: 'c-1',
    });

    // Assess
    expect(outcome).toMatchObject({ category: 'success' });
  });

  it('reuses one keep-alive connection across calls, retries and the key refresh', async () => {
    // Prepare
    const fresh = await startCaptureServer(() => ok);
    const keys = new InMemoryApiKeySource('old-api-key');
    keys.storedKey = 'new-api-key';
    fresh.respond(acceptsOnlyNewKeyBusyAt(2));
    const client = new PlatformCaller(settingsFor(fresh.baseUrl), keys, {}, instantClock().deps);

    // Act
    for (let i = 0; i < 4; i += 1) {
      await client.send(deleteCampaignRecord, { campaignName: 'Leads', clientId: `c-${i}` });
    }
    const requests = fresh.requests.length;
    const connections = fresh.connections();
    await fresh.close();

    // Assess
    expect(requests).toBe(6);
    expect(connections).toBe(1);
  });

  it('rejects invalid HTTP settings at construction', () => {
    // Prepare
    const keys = new InMemoryApiKeySource('k');

    // Act
    const build = () => new PlatformCaller(settingsFor(server.baseUrl), keys, { maxAttempts: 0 });

    // Assess
    expect(build).toThrow('Invalid HTTP setting maxAttempts: 0');
  });
});
