/**
 * One run of the convergence property: an entity history is delivered as SQS really delivers
 * (shuffled, doubled, concurrent, redelivered after faults), then every dead letter is redriven
 * once; the platform must then hold, for every entity, what the model says. Shared by the suite
 * on the in-memory ledger (many histories) and the one on moto's DynamoDB (real conditions).
 *
 * A history with a second part (steps naming records by previewRecordId) is delivered in two:
 * the first part, then, once every record has its platform id, the rest with those ids filled in.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { ACTION_NAMES, type ActionName, actionDefinition } from '../../../lambdas/actions';
import { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import {
  DELIVERY_FAULTS,
  type DeliveryMode,
  deliverPart,
  type Invoke,
  type PartReport,
} from '../../../local/convergence/delivery';
import { eventsOf, type History, resolveById } from '../../../local/convergence/histories';
import {
  applyInOrder,
  compareStates,
  type EntityVerdict,
  type ModelEvent,
  project,
  versionOrder,
} from '../../../local/convergence/model';
import {
  type FaultSettings,
  type RunningSimulator,
  startSimulator,
} from '../../../local/simulator';
import { seededRandom } from '../../../local/simulator/faults';
import { InMemoryApiKeySource } from '../../../testkit';
import {
  type CapturedOutput,
  captureOutput,
  fakeContext,
  RecordingDeadLetters,
  settingsFor,
  TENANT,
  type TestHandler,
  testHandler,
} from '../support/harness';

export const API_KEY = 'sk-convergence-3b7f1c9e';
export const MAX_RECEIVE_COUNT = 5;

/**
 * How the suites deliver the new histories: `shuffled` (the default) or `in-order`, the
 * reference run a runtime that orders nothing passes as well.
 */
export const deliveryModeFromEnv = (): DeliveryMode =>
  process.env.CONVERGENCE_DELIVERY === 'in-order' ? 'in-order' : 'shuffled';

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

/** Totals of a suite, all zero to start with. */
export const newRunStats = (): RunStats => ({
  messages: 0,
  redeliveries: 0,
  deadLetters: 0,
  entities: 0,
});

/**
 * The suite file's two simulators, started once: `actual` for the handlers, `expected` for the
 * model; and the file's totals, printed when it ends.
 */
export const simulatorsForFile = (
  name: string,
): { readonly simulators: () => Platforms; readonly stats: RunStats } => {
  const stats = newRunStats();
  let platforms: Platforms | undefined;
  beforeAll(async () => {
    const [actual, expected] = await Promise.all(
      [1, 2].map((seed) => startSimulator({ ...TENANT, apiKey: API_KEY, seed })),
    );
    if (actual && expected) platforms = { actual, expected };
  });
  afterAll(async () => {
    await Promise.all([platforms?.actual.close(), platforms?.expected.close()]);
    console.info(`${name}: ${JSON.stringify(stats)}`);
  });
  const simulators = () => {
    if (!platforms) throw new Error('simulators not started');
    return platforms;
  };
  return { simulators, stats };
};

/**
 * Busy entities are waited for 20× faster than in Lambda: one process plays every function
 * here, and the waits would only stretch the run.
 */
export const fasterWaits = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms / 20));

/** Each run gets a ledger of its own. */
export const inMemoryLedger = (): EntityLedger =>
  new EntityLedger({ store: new InMemoryLedgerStore(), sleep: fasterWaits });

export interface RunOptions {
  /** @default DELIVERY_FAULTS */
  readonly faults?: FaultSettings;
  /** @default 2000 */
  readonly requestTimeoutMs?: number;
  /** @default 'shuffled' */
  readonly mode?: DeliveryMode;
}

/** The ordered actions' handlers on `actual`, sharing the ledger and one dead-letter queue. */
export const openRun = (
  platforms: Platforms,
  ledger: EntityLedger,
  seed: number,
  options: RunOptions,
) => {
  const { actual, expected } = platforms;
  actual.reset();
  expected.reset();
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
  const invoke: Invoke = async (action, event) =>
    handlers.get(action as ActionName)?.(event, fakeContext());
  const random = seededRandom(seed);
  const settings = settingsFor(expected.baseUrl);
  return {
    random,
    /** Delivers one part, then redrives its dead letters. */
    deliver: (events: readonly ModelEvent[], name: string): Promise<PartReport> =>
      deliverPart(events, invoke, actual, deadLetters, {
        mode: options.mode ?? 'shuffled',
        faults: options.faults ?? DELIVERY_FAULTS,
        random,
        maxReceiveCount: MAX_RECEIVE_COUNT,
        name,
      }),
    /** `events` as the delivery takes them: in version order for a delivery in order. */
    arranged: <E extends ModelEvent>(events: readonly E[]): readonly E[] =>
      options.mode === 'in-order' ? versionOrder(events) : events,
    /** The model: `events` applied once each, in order, on top of what `expected` holds. */
    model: (events: readonly ModelEvent[]) => applyInOrder(events, expected, settings, API_KEY),
  };
};

/**
 * The handlers' log lines (DEBUG) are kept, not printed: thousands per run would bury the
 * report. They are checked for the key.
 */
export const quietly = async <T>(
  act: () => Promise<T>,
): Promise<{ result: T; output: CapturedOutput }> => {
  const output = captureOutput();
  try {
    return { result: await act(), output };
  } finally {
    output.stop();
  }
};

/** Per entity: does `actual` hold what the model left on `expected`? Only those that differ. */
export const divergence = (platforms: Platforms, events: readonly ModelEvent[]): EntityVerdict[] =>
  compareStates(project(platforms.expected, events), project(platforms.actual, events)).filter(
    (verdict) => !verdict.converged,
  );

/** Nothing lost, every dead letter says why, the key never logged. */
export const expectDeliveredSoundly = (parts: readonly PartReport[], output: CapturedOutput) => {
  // Something was delivered: the handlers logged it (a part can be empty by chance).
  if (parts.some((part) => part.delivered.messages > 0)) {
    expect(output.writes.length).toBeGreaterThan(0);
  }
  expect(output.writes.join('')).not.toContain(API_KEY);
  for (const part of parts) {
    expect(part.delivered.failedOnLastReceive).toEqual([]);
    expect(part.redriven.failedOnLastReceive).toEqual([]);
    for (const letter of [...part.letters, ...part.lettersAfterRedrive]) {
      expect(letter.reason.errorCode.length).toBeGreaterThan(0);
      expect(letter.reason.errorMessage.length).toBeGreaterThan(0);
    }
  }
};

export const expectConverged = (
  platforms: Platforms,
  events: readonly ModelEvent[],
  when = 'at the end',
) => {
  const diverged = divergence(platforms, events);
  expect(diverged, `${when}: ${JSON.stringify(diverged, null, 1)}`).toEqual([]);
};

export const countRun = (
  stats: RunStats,
  parts: readonly PartReport[],
  platforms: Platforms,
  events: readonly ModelEvent[],
) => {
  for (const part of parts) {
    stats.messages += part.delivered.messages + part.redriven.messages;
    stats.redeliveries += part.delivered.redeliveries + part.redriven.redeliveries;
    stats.deadLetters += part.letters.length;
  }
  stats.entities += project(platforms.expected, events).size;
};

/** One run of a convergence property over one history; it asserts, and counts into `stats`. */
export type HistoryRun = (
  platforms: Platforms,
  ledger: EntityLedger,
  history: History,
  seed: number,
  stats: RunStats,
  options?: RunOptions,
) => Promise<void>;

export const convergenceRun: HistoryRun = async (
  platforms,
  ledger,
  history,
  seed,
  stats,
  options = {},
) => {
  // Prepare
  const run = openRun(platforms, ledger, seed, options);
  const events = eventsOf(history);

  // Act: the day as delivered, then every dead letter redriven once, as an operator would. With
  // a second part, the model of the first is checked and lends the ids the rest names records by.
  let divergedAfterFirstPart: EntityVerdict[] = [];
  let unresolvedOnModel: readonly unknown[] = [];
  const { result: parts, output } = await quietly(async () => {
    const first = await run.deliver(run.arranged(history.first), `run-${seed}`);
    if (history.rest.length === 0) return [first];
    await run.model(history.first);
    divergedAfterFirstPart = divergence(platforms, events);
    const rest = run.arranged(history.rest);
    unresolvedOnModel = resolveById(rest, platforms.expected.state).unresolved;
    const { messages } = resolveById(rest, platforms.actual.state);
    return [first, await run.deliver(messages, `rest-${seed}`)];
  });
  await run.model(history.rest.length === 0 ? history.first : history.rest);

  // Assess
  expect(unresolvedOnModel, 'the history names a record the model does not hold').toEqual([]);
  expectDeliveredSoundly(parts, output);
  expect(
    divergedAfterFirstPart,
    `after the first part: ${JSON.stringify(divergedAfterFirstPart, null, 1)}`,
  ).toEqual([]);
  expectConverged(platforms, events);
  countRun(stats, parts, platforms, events);
};
