/**
 * The pipeline in-process: the real handlers over the in-memory queues against the simulator.
 * These are the SQS paths the example run does not take without faults: partial batch
 * failure, redelivery after the backoff, the last receive, and the redrive policy.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryBackend } from '../../../local/backends/in-memory';
import type { Scenario } from '../../../local/run/event-input';
import { evaluateRun } from '../../../local/run/expectations';
import { type RetryInfo, runPipeline } from '../../../local/run/pipeline';
import { discardLogSink } from '../../../local/run/run-logger';
import { runSettingsFrom } from '../../../local/run/run-settings';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';

const API_KEY = 'pipeline-test-key';
let simulator: RunningSimulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

const setUp = async (maxReceiveCount: number) => {
  const settings = runSettingsFrom(
    { allowedSources: ['hr'], actions: { 'add-user': { maxReceiveCount } } },
    'test',
  );
  simulator = await startSimulator({ apiKey: API_KEY, ...settings.tenant });
  const backend = new InMemoryBackend(settings, API_KEY);
  return { settings, backend, simulator };
};

const addUser = (correlationId: string, fields: Record<string, unknown> = {}) => ({
  file: 'test.json',
  index: 0,
  format: 'eventbridge' as const,
  source: 'hr',
  detailType: 'add-user',
  detail: {
    correlationId,
    loginUserId: `${correlationId}@example.com`,
    firstName: 'Test',
    lastName: 'User',
    userTemplateName: 'Agent',
    ...fields,
  },
  envelope: {},
});

const scenarioOf = (...events: ReturnType<typeof addUser>[]): Scenario => ({
  origin: 'test',
  phases: [{ file: 'test.json', events }],
  seed: { users: [] },
  expectations: undefined,
});

describe('runPipeline', () => {
  it('deletes what succeeded, redelivers the failed record after its backoff, then applies it', async () => {
    // Prepare
    const { settings, backend, simulator } = await setUp(5);
    simulator.setFaults({ serverErrorRate: 1 });
    const retries: RetryInfo[] = [];
    const startedAt = backend.clock.now();

    // Act
    const result = await runPipeline({
      scenario: scenarioOf(addUser('good'), addUser('bad', { firstName: '' })),
      settings,
      backend,
      simulator,
      logSink: discardLogSink,
      faults: false,
      observer: {
        retry: (info) => {
          retries.push(info);
          simulator.setFaults({});
        },
      },
    });

    // Assess
    expect(retries).toEqual([
      expect.objectContaining({
        correlationId: 'good',
        receive: 1,
        code: expect.stringMatching(/^HTTP_50[023]$/),
      }),
    ]);
    expect(result.fates.map((f) => [f.correlationId, f.kind, f.code, f.receives])).toEqual([
      ['good', 'applied', 'SUCCESS', 2],
      ['bad', 'dead-lettered', 'INVALID_MESSAGE', 1],
    ]);
    // The first backoff, in the message's own visibility: half to all of firstDelaySeconds.
    const waited = backend.clock.now() - startedAt;
    expect(waited).toBeGreaterThanOrEqual((settings.retry.firstDelaySeconds / 2) * 1000);
    expect(waited).toBeLessThanOrEqual(settings.retry.firstDelaySeconds * 1000);
    expect(simulator.state.findUser('good@example.com')).toBeDefined();
    expect(backend.deadLetterQueue('add-user').letters.map((l) => l.reason?.correlationId)).toEqual(
      ['bad'],
    );
  });

  it('dead-letters a message that fails on every receive on its last receive, with the reason', async () => {
    // Prepare
    const { settings, backend, simulator } = await setUp(2);
    simulator.setFaults({ serverErrorRate: 1 });

    // Act
    const result = await runPipeline({
      scenario: scenarioOf(addUser('unlucky')),
      settings,
      backend,
      simulator,
      logSink: discardLogSink,
      faults: false,
    });

    // Assess
    const [fate] = result.fates;
    expect(fate).toMatchObject({
      kind: 'dead-lettered',
      receives: 2,
      reason: { category: 'retryable' },
    });
    expect(fate?.reason?.message).toMatch(/^gave up after receive 2: /);
    expect(evaluateRun(result.fates, undefined, { faults: false }).ok).toBe(true);
  });

  it('reports a message the redrive policy moved to the DLQ without a reason, and fails the run', async () => {
    // Prepare
    const { settings, backend, simulator } = await setUp(3);
    backend.deadLetterQueue('add-user').failNextSends(100);

    // Act
    const result = await runPipeline({
      scenario: scenarioOf(addUser('poison', { loginUserId: '' })),
      settings,
      backend,
      simulator,
      logSink: discardLogSink,
      faults: false,
    });
    const verdict = evaluateRun(result.fates, undefined, { faults: false });

    // Assess
    expect(result.fates).toEqual([
      expect.objectContaining({
        correlationId: 'poison',
        kind: 'redriven',
        code: 'REDRIVEN',
        receives: 3,
      }),
    ]);
    const letters = backend.deadLetterQueue('add-user').letters;
    expect(letters.map((l) => [l.movedBy, 'reason' in l])).toEqual([['redrive', false]]);
    expect(verdict.ok).toBe(false);
    expect(verdict.problems).toEqual([
      expect.stringContaining('poison is in the DLQ without a reason'),
    ]);
  });

  it('with faults, rotates the API key once and the handlers recover with one refresh each', async () => {
    // Prepare
    const { settings, backend, simulator } = await setUp(5);
    const events = Array.from({ length: 5 }, (_, i) => addUser(`joiner-${i}`));
    const phases = events.map((event, i) => ({ file: `phase-${i}.json`, events: [event] }));

    // Act
    const result = await runPipeline({
      scenario: { origin: 'test', phases, seed: { users: [] }, expectations: undefined },
      settings,
      backend,
      simulator,
      logSink: discardLogSink,
      faults: true,
    });

    // Assess
    expect(result.keyRotations).toBe(1);
    expect(result.fates.every((f) => f.kind === 'applied')).toBe(true);
    expect(backend.secretStore.version).toBe(2);
    expect(simulator.stats.unauthorized).toBeGreaterThan(0);
  });
});
