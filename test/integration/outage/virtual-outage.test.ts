/**
 * Platform outages in virtual time: the real handlers over the in-memory SQS queues (backoff in
 * each message's visibility, a virtual clock) against the simulator over a real socket, with the
 * breakers sharing one store as the deployment's functions share the ledger table.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RetrySchedule } from '../../../lambdas/core/entry/retry-schedule';
import { DEFAULT_BREAKER_SETTINGS } from '../../../lambdas/core/resilience/circuit-breaker';
import { InMemoryBackend } from '../../../local/backends/in-memory';
import { loadScenario, type Scenario } from '../../../local/run/event-input';
import { evaluateRun } from '../../../local/run/expectations';
import { type PipelineOptions, runPipeline } from '../../../local/run/pipeline';
import { seedSimulator } from '../../../local/run/run';
import { discardLogSink } from '../../../local/run/run-logger';
import { runSettingsFrom, withRetrySchedule } from '../../../local/run/run-settings';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { REPO_ROOT } from '../../support/repo-paths';

const API_KEY = 'outage-test-key';
const HOUR = 3600_000;
let simulator: RunningSimulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

interface SetUpOptions {
  /** Run config fields over the test's allowed sources. */
  readonly config?: Record<string, unknown>;
  /** A retry schedule other than the config's. */
  readonly retry?: RetrySchedule;
}

/** A seeded simulator and an in-memory backend for `scenario`, and a fault-free run of it. */
const setUp = async (scenario: Scenario, options: SetUpOptions = {}) => {
  const configured = runSettingsFrom(
    { allowedSources: ['com.examplecorp.crm', 'com.examplecorp.hr', 'hr'], ...options.config },
    'test',
  );
  const settings = options.retry ? withRetrySchedule(configured, options.retry) : configured;
  const sim = await startSimulator({ apiKey: API_KEY, ...settings.tenant, seed: 1 });
  simulator = sim;
  seedSimulator(sim, scenario);
  const backend = new InMemoryBackend(settings, API_KEY);
  /** The pipeline over the scenario with no simulator faults; `extra` adds an outage or an observer. */
  const run = (extra: Partial<PipelineOptions> = {}) =>
    runPipeline({
      scenario,
      settings,
      backend,
      simulator: sim,
      logSink: discardLogSink,
      faults: false,
      ...extra,
    });
  return { settings, backend, simulator: sim, run };
};

const addUsers = (count: number): Scenario => ({
  origin: 'test',
  phases: [
    {
      file: 'joiners.json',
      events: Array.from({ length: count }, (_, i) => ({
        file: 'joiners.json',
        index: i,
        format: 'eventbridge' as const,
        source: 'hr',
        detailType: 'add-user',
        detail: {
          correlationId: `joiner-${i}`,
          loginUserId: `joiner-${i}@example.com`,
          firstName: 'Joiner',
          lastName: `Number${i}`,
          userTemplateName: 'Agent',
        },
        envelope: {},
      })),
    },
  ],
  seed: { users: [] },
  expectations: undefined,
});

describe('a platform outage in virtual time', () => {
  it('survives 6 hours down: nothing lost or dead-lettered by the outage, a few probes per minute', async () => {
    // Prepare
    const scenario = loadScenario(path.join(REPO_ROOT, 'examples'), REPO_ROOT);
    const { settings, run } = await setUp(scenario, {
      config: { allowedSources: ['com.examplecorp.crm', 'com.examplecorp.hr'] },
    });
    const outageMs = 6 * HOUR;

    // Act
    const result = await run({ outageMs });

    // Assess: every message ends as it does without an outage. The user someone else made
    // (noah) stays someone else's: the ledger looked before its first add, so a 5xx answer to a
    // later add cannot make that user ours.
    const verdict = evaluateRun(result.fates, scenario.expectations, {
      faults: false,
      outage: true,
    });
    expect(verdict.problems).toEqual([]);
    expect(verdict.warnings).toEqual([]);
    expect(result.fates.filter((f) => f.kind === 'lost' || f.kind === 'redriven')).toEqual([]);
    // Nothing dead-lettered for the outage: only the expected invalid or foreign messages.
    const dead = result.fates.filter((f) => f.kind === 'dead-lettered').map((f) => f.code);
    expect(dead).not.toContain('HTTP_503');
    // The breaker's bound: per service one probe per cool-down, plus each function's first run.
    const minutes = outageMs / 60_000;
    const perServicePerMinute = 60_000 / DEFAULT_BREAKER_SETTINGS.coolDownMs;
    const functions = Object.values(settings.actions).filter((a) => a.enabled).length;
    expect(result.requestsDuringOutage).toBeLessThanOrEqual(
      2 * perServicePerMinute * minutes + functions * settings.retry.firstDelaySeconds,
    );
    expect(result.requestsDuringOutage / minutes).toBeLessThan(2 * perServicePerMinute);
    expect(result.probes).toBeGreaterThan(0);
  });

  it('dead-letters every message with the window reason when the outage outlasts the window, losing none', async () => {
    // Prepare
    const scenario = addUsers(12);
    const { backend, run } = await setUp(scenario, {
      retry: { windowSeconds: 3600, firstDelaySeconds: 30, maxDelaySeconds: 900 },
    });

    // Act
    const result = await run({ outageMs: 3 * HOUR });

    // Assess
    expect(result.fates).toHaveLength(12);
    for (const fate of result.fates) {
      expect(fate).toMatchObject({ kind: 'dead-lettered', code: 'RETRY_WINDOW_SPENT' });
      // Given up at the receive whose next retry could only start after the hour: between
      // half a maximum backoff before the window's end and one backoff after it.
      expect(fate.reason?.message).toMatch(
        /^retried for (5\d min \d+ s|1 h \d+ min) over \d+ receives \(retry window 1 h 0 min\); last failure PLATFORM_UNAVAILABLE/,
      );
    }
    expect(backend.deadLetterQueue('add-user').letters).toHaveLength(12);
  });

  it('makes no call for a message before the 60 s a 429 Retry-After asks for', async () => {
    // Prepare
    const scenario = addUsers(1);
    const { settings, backend, simulator: sim, run } = await setUp(scenario);
    sim.setFaults({ throttleRate: 1, retryAfterSeconds: 60 });
    const startedAt = backend.clock.now();
    const requestsAt: number[] = [];
    const observe = () => requestsAt.push(backend.clock.now() - startedAt);

    // Act
    const result = await run({
      observer: {
        retry: () => {
          observe();
          sim.setFaults({});
        },
        fate: observe,
      },
    });

    // Assess: one throttled request (the look before the first add of a user), then the look
    // and the add 60 s (virtual) later, not sooner.
    expect(result.fates.map((f) => [f.kind, f.code, f.receives])).toEqual([
      ['applied', 'SUCCESS', 2],
    ]);
    expect(sim.stats.snapshot().requests).toBe(3);
    expect(requestsAt).toHaveLength(2);
    expect((requestsAt[1] ?? 0) - (requestsAt[0] ?? 0)).toBeGreaterThanOrEqual(60_000);
    expect(settings.actions['add-user'].visibilityTimeoutSeconds).toBeGreaterThan(60);
  });
});
