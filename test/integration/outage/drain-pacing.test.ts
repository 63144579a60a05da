/**
 * Pacing end to end: the real handler's instances drain a backlog against the simulator over a
 * real socket, the simulator enforcing a platform rate limit (429 + Retry-After beyond it).
 * Asserts outcomes and counts, never times (the bench measures the drain's speed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { measureDrain } from '../../../bench/drain';
import {
  BENCH_API_KEY,
  benchBodies,
  loadScenario,
  platformSettings,
} from '../../../bench/scenario';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';

let simulator: RunningSimulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

const drainAgainst = async (
  messages: number,
  ceilingPerSecond: number,
  platformLimitPerSecond: number,
) => {
  const scenario = loadScenario();
  const sim = await startSimulator({ apiKey: BENCH_API_KEY, ...scenario.config.tenant, seed: 1 });
  simulator = sim;
  return measureDrain({
    action: scenario.action,
    bodies: benchBodies('pacing', messages),
    platform: {
      baseUrl: sim.baseUrl,
      setFaults: (faults) => sim.setFaults(faults),
      stats: () => sim.stats.snapshot(),
    },
    platformSettings: platformSettings(scenario, sim.baseUrl),
    apiKey: BENCH_API_KEY,
    instances: 10,
    batchSize: 10,
    ceilingPerSecond,
    // The example's split: the ceiling over 30 instances of the realtime actions.
    floorPerSecond: ceilingPerSecond / 30,
    platformLimitPerSecond,
    timeoutMs: 60_000,
  });
};

describe('pacing toward a rate-limited platform', () => {
  it('drains a backlog at the ceiling the platform allows: every message applied, hardly a 429', async () => {
    // Act
    const result = await drainAgainst(600, 100, 100);

    // Assess
    expect(result).toMatchObject({ messages: 600, applied: 600, deadLettered: 0 });
    expect(result.throttled).toBeLessThanOrEqual(6);
    expect(result.requests).toBe(600 + result.throttled);
  });

  it('backs off when the ceiling is set above what the platform allows: a 429 halves the pace, nothing is lost', async () => {
    // Act
    const result = await drainAgainst(300, 100, 30);

    // Assess: without AIMD about two requests in three would draw a 429 at this gap.
    expect(result).toMatchObject({ messages: 300, applied: 300, deadLettered: 0 });
    expect(result.throttled).toBeGreaterThan(0);
    expect(result.throttled).toBeLessThan(result.messages / 2);
  });
});
