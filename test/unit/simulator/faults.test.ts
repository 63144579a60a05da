import { describe, expect, it } from 'vitest';
import { type RunningSimulator, validateFaultSettings } from '../../../local/simulator';
import { FaultInjector, seededRandom } from '../../../local/simulator/faults';
import {
  addBody,
  addRecord,
  authHeaders,
  newUser,
  postJson,
  provisioning,
  realtimeUrl,
  statusOf,
  useTestSimulator,
  withTestSimulator,
} from './simulator-support';

/** fetch rejects when the server destroys the socket without an answer. */
const expectNoAnswer = async (promise: Promise<unknown>) => {
  await expect(promise).rejects.toThrow(/fetch failed/);
};

describe('simulator: fault injection', () => {
  const sim = useTestSimulator({ seed: 42 });

  it('answers 500/502/503 to every request at serverErrorRate 1 and applies nothing', async () => {
    // Prepare
    sim.setFaults({ serverErrorRate: 1 });

    // Act
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        addRecord(sim, 'Leads', { ...addBody, clientId: `c${i}` }),
      ),
    );

    // Assess
    for (const reply of replies) expect([500, 502, 503]).toContain(reply.status);
    expect(sim.state.listRecords('Leads')).toEqual([]);
    expect(sim.stats.faults.serverError).toBe(12);
    expect(sim.stats.endpoint('addOrUpdateCampaignRecord').faults.serverError).toBe(12);
  });

  it('answers 429 with Retry-After when retryAfterSeconds is set, and without it otherwise', async () => {
    // Prepare
    sim.setFaults({ throttleRate: 1, retryAfterSeconds: 3 });

    // Act
    const withHeader = await addRecord(sim, 'Leads', addBody);
    sim.setFaults({ throttleRate: 1 });
    const withoutHeader = await addRecord(sim, 'Leads', addBody);

    // Assess
    expect(withHeader.status).toBe(429);
    expect(withHeader.headers.get('retry-after')).toBe('3');
    expect(withoutHeader.status).toBe(429);
    expect(withoutHeader.headers.get('retry-after')).toBeNull();
    expect(sim.state.listRecords('Leads')).toEqual([]);
  });

  it('resets the connection without applying the request', async () => {
    // Prepare
    sim.setFaults({ connectionResetRate: 1 });

    // Act
    await expectNoAnswer(addRecord(sim, 'Leads', addBody));

    // Assess
    expect(sim.state.listRecords('Leads')).toEqual([]);
    expect(sim.stats.faults.connectionReset).toBe(1);
  });

  it('applies the request and then resets the connection for a lost response', async () => {
    // Prepare
    sim.setFaults({ lostResponseRate: 1 });

    // Act
    await expectNoAnswer(addRecord(sim, 'Leads', addBody));

    // Assess
    expect(sim.state.findByClientId('Leads', 'crm-1')?.appliedCount).toBe(1);
    expect(sim.stats.faults.lostResponse).toBe(1);
  });

  it('answers 200 FAILED (realtime) and 200 FAIL (provisioning) without applying', async () => {
    // Prepare
    sim.setFaults({ failedStatusRate: 1 });

    // Act
    const realtimeReply = await addRecord(sim, 'Leads', addBody);
    const provisioningReply = await provisioning(sim, 'add-user', newUser);

    // Assess
    expect(realtimeReply.status).toBe(200);
    expect(statusOf(realtimeReply)).toBe('FAILED');
    expect(realtimeReply.json.campaignName).toBe('Leads');
    expect(realtimeReply.json.previewResult?.error).toEqual(expect.any(String));
    expect(provisioningReply.status).toBe(200);
    expect(provisioningReply.json.result).toBe('FAIL');
    expect(sim.state.listRecords('Leads')).toEqual([]);
    expect(sim.state.listUsers()).toEqual([]);
  });

  it('answers 200 with an HTML page for a malformed body', async () => {
    // Prepare
    sim.setFaults({ malformedBodyRate: 1 });

    // Act
    const reply = await addRecord(sim, 'Leads', addBody);

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
    expect(reply.text).toMatch(/^<!DOCTYPE html>/);
    expect(sim.state.listRecords('Leads')).toEqual([]);
  });

  it('never answers a hanging request; the client times out and nothing is applied', async () => {
    // Prepare
    sim.setFaults({ hangRate: 1 });

    // Act
    const attempt = postJson(
      realtimeUrl(sim, 'addOrUpdateCampaignRecord'),
      addBody,
      authHeaders(),
      AbortSignal.timeout(100),
    );

    // Assess
    await expect(attempt).rejects.toThrow(/aborted|timeout/i);
    expect(sim.state.listRecords('Leads')).toEqual([]);
    expect(sim.stats.faults.hang).toBe(1);
  });

  it('holds a request for the configured latency before applying it', async () => {
    // Prepare
    sim.setFaults({ latencyMs: 400 });

    // Act
    const pending = addRecord(sim, 'Leads', addBody);
    while (sim.stats.requests === 0) await new Promise((r) => setTimeout(r, 5));
    const appliedWhileHeld = sim.state.listRecords('Leads').length;
    const reply = await pending;

    // Assess
    expect(appliedWhileHeld).toBe(0);
    expect(statusOf(reply)).toBe('SUCCESS');
    expect(sim.state.listRecords('Leads')).toHaveLength(1);
    expect(sim.stats.delayed).toBe(1);
  });

  it('injects nothing into requests of the admin endpoint', async () => {
    // Prepare
    sim.setFaults({ serverErrorRate: 1 });

    // Act
    const response = await fetch(`${sim.baseUrl}/__admin/stats`);

    // Assess
    expect(response.status).toBe(200);
  });

  it('reset switches every fault off', async () => {
    // Prepare
    sim.setFaults({ serverErrorRate: 1 });

    // Act
    sim.reset();
    const reply = await addRecord(sim, 'Leads', addBody);

    // Assess
    expect(reply.status).toBe(200);
    expect(sim.faults).toEqual({});
  });

  it('injects a share near the configured rate, the same sequence for the same seed', async () => {
    // Prepare
    const run = async (target: RunningSimulator) => {
      target.setFaults({ serverErrorRate: 0.3 });
      const statuses: number[] = [];
      for (let i = 0; i < 100; i += 1) {
        statuses.push((await addRecord(target, 'Leads', { ...addBody, clientId: `c${i}` })).status);
      }
      return statuses;
    };
    await withTestSimulator({ seed: 42 }, async (twin) => {
      // Act
      const first = await run(sim);
      const second = await run(twin);

      // Assess
      expect(second).toEqual(first);
      const failures = first.filter((s) => s >= 500).length;
      expect(failures).toBeGreaterThan(15);
      expect(failures).toBeLessThan(45);
      expect(sim.state.listRecords('Leads')).toHaveLength(100 - failures);
    });
  });
});

describe('fault settings', () => {
  it.each([
    ['a rate above 1', { serverErrorRate: 1.5 }],
    ['a negative latency', { latencyMs: -1 }],
    ['a non-number', { throttleRate: '0.5' }],
    ['an unknown setting', { errorRate: 0.5 }],
    ['rates adding up beyond 1', { serverErrorRate: 0.6, throttleRate: 0.6 }],
    ['a non-object', [0.5]],
  ])('rejects %s', (_label, settings) => {
    // Act
    const act = () => validateFaultSettings(settings);

    // Assess
    expect(act).toThrow();
  });

  it('accepts rates adding up to exactly 1 and splits draws into exclusive bands', () => {
    // Prepare
    const injector = new FaultInjector({ serverErrorRate: 0.5, throttleRate: 0.5 }, 7);

    // Act
    const kinds = new Set(Array.from({ length: 200 }, () => injector.decide()));

    // Assess
    expect(kinds).toEqual(new Set(['serverError', 'throttle']));
  });

  it('throttles beyond the rate limit: one second of requests at once, then the refill rate', () => {
    // Prepare
    let now = 0;
    const injector = new FaultInjector({ rateLimitPerSecond: 4 }, 1, () => now);
    const burst = () => Array.from({ length: 6 }, () => injector.decide() ?? 'ok');

    // Act
    const first = burst();
    now += 500; // two requests' worth refilled
    const second = burst();

    // Assess
    expect(first).toEqual(['ok', 'ok', 'ok', 'ok', 'throttle', 'throttle']);
    expect(second).toEqual(['ok', 'ok', 'throttle', 'throttle', 'throttle', 'throttle']);
    expect(injector.retryAfterSeconds).toBe(1);
  });

  it('the seeded generator stays within [0, 1) and repeats for the same seed', () => {
    // Prepare
    const a = seededRandom(3);
    const b = seededRandom(3);

    // Act
    const first = Array.from({ length: 1000 }, () => a());
    const second = Array.from({ length: 1000 }, () => b());

    // Assess
    expect(first).toEqual(second);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
