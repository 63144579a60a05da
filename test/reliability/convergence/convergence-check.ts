/**
 * One run of the convergence property: an entity history is delivered as SQS really delivers
 * (shuffled, doubled, concurrent, redelivered after faults), then every dead letter is redriven
 * once; the platform must then hold, for every entity, what the model says. Shared by the suite
 * on the in-memory ledger (many histories) and the one on moto's DynamoDB (real conditions).
 */
import { expect } from 'vitest';
import { ACTION_NAMES, type ActionName, actionDefinition } from '../../../lambdas/actions';
import type { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { deliver } from '../../../local/convergence/delivery';
import {
  applyInOrder,
  compareStates,
  type ModelEvent,
  project,
} from '../../../local/convergence/model';
import type { FaultSettings, RunningSimulator } from '../../../local/simulator';
import { seededRandom } from '../../../local/simulator/faults';
import { InMemoryApiKeySource } from '../../../testkit';
import {
  captureOutput,
  fakeContext,
  RecordingDeadLetters,
  settingsFor,
  type TestHandler,
  testHandler,
} from '../support/harness';

export const API_KEY = 'sk-convergence-3b7f1c9e';
export const MAX_RECEIVE_COUNT = 5;

/** Platform trouble during delivery: retries, lost answers and redeliveries happen. */
export const DELIVERY_FAULTS: FaultSettings = {
  serverErrorRate: 0.08,
  throttleRate: 0.04,
  retryAfterSeconds: 0,
  connectionResetRate: 0.02,
  failedStatusRate: 0.04,
  lostResponseRate: 0.05,
};

export interface Platforms {
  /** Where the handlers work. */
  readonly actual: RunningSimulator;
  /** Where the model applies the events in order. */
  readonly expected: RunningSimulator;
}

export interface RunStats {
  messages: number;
  redeliveries: number;
  deadLetters: number;
  entities: number;
}

export const convergenceRun = async (
  platforms: Platforms,
  ledger: EntityLedger,
  events: readonly ModelEvent[],
  seed: number,
  stats: RunStats,
  options: {
    /** @default DELIVERY_FAULTS */
    readonly faults?: FaultSettings;
    /** @default 2000 */
    readonly requestTimeoutMs?: number;
  } = {},
): Promise<void> => {
  // Prepare
  const { actual, expected } = platforms;
  actual.reset();
  expected.reset();
  actual.setFaults(options.faults ?? DELIVERY_FAULTS);
  const deadLetters = new RecordingDeadLetters();
  const handlers = new Map<ActionName, TestHandler>(
    ACTION_NAMES.filter((action) => actionDefinition(action).ordering !== undefined).map(
      (action) => [
        action,
        testHandler(action, {
          baseUrl: actual.baseUrl,
          apiKey: new InMemoryApiKeySource(API_KEY),
          deadLetters,
          ledger,
          maxReceiveCount: MAX_RECEIVE_COUNT,
          http: { requestTimeoutMs: options.requestTimeoutMs ?? 2000 },
        }),
      ],
    ),
  );
  const invoke = async (action: string, event: Parameters<TestHandler>[0]) =>
    handlers.get(action as ActionName)?.(event, fakeContext());
  const random = seededRandom(seed);

  // Act: the day as delivered, then every dead letter redriven once, as an operator would. The
  // handlers' log lines (DEBUG) are kept, not printed: thousands per run would bury the report.
  const output = captureOutput();
  let delivered: Awaited<ReturnType<typeof deliver>>;
  let letters: typeof deadLetters.entries;
  let redriven: Awaited<ReturnType<typeof deliver>>;
  try {
    delivered = await deliver(events, invoke, {
      random,
      duplicateRate: 0.3,
      maxReceiveCount: MAX_RECEIVE_COUNT,
      prefix: `run-${seed}`,
    });
    actual.setFaults({});
    letters = deadLetters.entries.splice(0);
    redriven = await deliver(
      letters.map((letter) => ({ action: letter.reason.action, message: JSON.parse(letter.body) })),
      invoke,
      { random, duplicateRate: 0, maxReceiveCount: MAX_RECEIVE_COUNT, prefix: `redrive-${seed}` },
    );
  } finally {
    output.stop();
  }
  const settings = settingsFor(expected.baseUrl);
  await applyInOrder(events, expected, settings, API_KEY);

  // Assess: nothing lost, every dead letter says why, the key never logged, every entity converged
  expect(output.writes.length).toBeGreaterThan(0);
  expect(output.writes.join('')).not.toContain(API_KEY);
  expect(delivered.failedOnLastReceive).toEqual([]);
  expect(redriven.failedOnLastReceive).toEqual([]);
  for (const letter of [...letters, ...deadLetters.entries]) {
    expect(letter.reason.errorCode.length).toBeGreaterThan(0);
    expect(letter.reason.errorMessage.length).toBeGreaterThan(0);
  }
  const verdicts = compareStates(project(expected, events), project(actual, events));
  const diverged = verdicts.filter((verdict) => !verdict.converged);
  expect(diverged, JSON.stringify(diverged, null, 1)).toEqual([]);
  stats.messages += delivered.messages + redriven.messages;
  stats.redeliveries += delivered.redeliveries + redriven.redeliveries;
  stats.deadLetters += letters.length;
  stats.entities += verdicts.length;
};
