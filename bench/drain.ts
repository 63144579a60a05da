/**
 * A backlog draining after an outage. `instances` handler instances of one action (the real
 * handler: ledger, platform caller, pacing with a shared census, backoff in the visibility)
 * take batches from one queue, in memory on the wall clock, until it is empty, against a
 * platform that enforces its own rate limit over a real socket. Gives how long the drain took
 * against the time the configured ceiling allows, and how many 429s it drew.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import { type ActionName, actionDefinition } from '../lambdas/actions';
import { createActionHandler } from '../lambdas/core/entry/invocation-entry';
import type { DeadLetterSink } from '../lambdas/core/entry/ports';
import { DEFAULT_RETRY_SCHEDULE } from '../lambdas/core/entry/retry-schedule';
import { EntityLedger } from '../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../lambdas/core/ledger/in-memory-ledger-store';
import { PlatformCaller } from '../lambdas/core/platform/platform-caller';
import type { PlatformSettings } from '../lambdas/core/platform/platform-settings';
import { InMemoryBreakerStore } from '../lambdas/core/resilience/in-memory-breaker-store';
import { InMemoryCensusStore } from '../lambdas/core/resilience/in-memory-census-store';
import { guardFor } from '../lambdas/core/resilience/platform-guard';
import { orderedWith } from '../lambdas/entities';
import { rateSharePerInstance } from '../lib/config';
import { InMemorySqsQueue } from '../local/in-memory/sqs-queue';
import { createRunMetrics, discardLogSink, RunLogger } from '../local/run/run-logger';
import type { FaultSettings, StatsSnapshot } from '../local/simulator';
import { lambdaContext } from '../testkit';
import { BENCH_API_KEY, benchBodies, platformSettings, type Scenario } from './scenario';

/** The platform side: the simulator in this process or in its own. */
export interface DrainPlatform {
  readonly baseUrl: string;
  setFaults(faults: FaultSettings): Promise<void> | void;
  stats(): Promise<StatsSnapshot> | StatsSnapshot;
}

export interface DrainOptions {
  readonly action: ActionName;
  /** SQS bodies of the backlog, all waiting when the drain starts. */
  readonly bodies: readonly string[];
  readonly platform: DrainPlatform;
  readonly platformSettings: PlatformSettings;
  readonly apiKey: string;
  /** Instances of the action's function polling the queue (its maxConcurrency). */
  readonly instances: number;
  readonly batchSize: number;
  /** The deployment's ceiling for the action's service, requests per second. */
  readonly ceilingPerSecond: number;
  /** The static share one instance is guaranteed (the ceiling ÷ every instance of the service). */
  readonly floorPerSecond: number;
  /** The platform's own limit; the simulator answers 429 beyond it. */
  readonly platformLimitPerSecond: number;
  /** The function timeout: the deadline of each invocation. */
  readonly timeoutMs: number;
}

export interface DrainResult {
  readonly messages: number;
  readonly instances: number;
  readonly ceilingPerSecond: number;
  readonly floorPerSecond: number;
  readonly platformLimitPerSecond: number;
  readonly applied: number;
  readonly deadLettered: number;
  readonly drainMs: number;
  /** The backlog at the ceiling: the shortest drain the deployment allows. */
  readonly idealMs: number;
  /** Spec requests the platform saw, and those it answered 429. */
  readonly requests: number;
  readonly throttled: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const measureDrain = async (options: DrainOptions): Promise<DrainResult> => {
  const { action } = options;
  const definition = actionDefinition(action);
  const queue = new InMemorySqsQueue({
    name: action,
    visibilityTimeoutSeconds: Math.ceil(options.timeoutMs / 1000) * 6,
    // The wall clock: pacing and Retry-After waits are real here.
    clock: Date,
  });
  for (const body of options.bodies) queue.send(body);

  let deadLettered = 0;
  const deadLetters: DeadLetterSink = {
    send: async () => {
      deadLettered += 1;
    },
  };
  const apiKey = { getKey: async () => options.apiKey, refreshKey: async () => options.apiKey };
  const ledger = new EntityLedger({ store: new InMemoryLedgerStore() });
  // One deployment: the instances share the breaker's state and the census, as they share the table.
  const breakerStore = new InMemoryBreakerStore();
  const censusStore = new InMemoryCensusStore();
  const handlerOf = () =>
    createActionHandler(definition, {
      platform: new PlatformCaller(
        options.platformSettings,
        apiKey,
        {},
        {
          guard: guardFor(definition.service, {
            store: breakerStore,
            ceilingPerSecond: options.floorPerSecond,
            census: { store: censusStore, serviceCeilingPerSecond: options.ceilingPerSecond },
          }),
        },
      ),
      ...orderedWith(definition, ledger),
      deadLetters,
      logger: new RunLogger({ action, sink: discardLogSink }),
      metrics: createRunMetrics(action, discardLogSink),
      maxReceiveCount: 1000,
      retrySchedule: DEFAULT_RETRY_SCHEDULE,
      rescheduler: {
        reschedule: async (handle, seconds) => queue.changeVisibility(handle, seconds),
      },
      queueClock: () => Date.now(),
    });

  await options.platform.setFaults({ rateLimitPerSecond: options.platformLimitPerSecond });
  const before = await options.platform.stats();
  const started = performance.now();
  /** One instance: polls like Lambda's SQS poller, one batch at a time, until the queue is empty. */
  const instance = async (): Promise<void> => {
    const handler = handlerOf();
    while (queue.size > 0) {
      const records = queue.receive(options.batchSize);
      if (records.length === 0) {
        await sleep(
          Math.min(1000, Math.max(5, (queue.nextVisibleAt() ?? Date.now()) - Date.now())),
        );
        continue;
      }
      const response = (await handler(
        { Records: records },
        lambdaContext({ functionName: action, timeoutMs: options.timeoutMs }),
      )) as SQSBatchResponse | undefined;
      const failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      for (const record of records) {
        if (!failed.has(record.messageId)) queue.deleteMessage(record.receiptHandle);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.instances }, instance));
  } finally {
    await options.platform.setFaults({});
  }
  const drainMs = performance.now() - started;
  const after = await options.platform.stats();
  return {
    messages: options.bodies.length,
    instances: options.instances,
    ceilingPerSecond: options.ceilingPerSecond,
    floorPerSecond: options.floorPerSecond,
    platformLimitPerSecond: options.platformLimitPerSecond,
    applied: options.bodies.length - deadLettered,
    deadLettered,
    drainMs,
    idealMs: (options.bodies.length / options.ceilingPerSecond) * 1000,
    requests: after.requests - before.requests,
    throttled: after.faults.throttle - before.faults.throttle,
  };
};

/**
 * The deployment's ceiling in the drain: higher than the example's 50/s so that 10 000
 * messages drain in about 40 s; the platform enforces the same limit.
 */
export const DRAIN_CEILING_PER_SECOND = 250;

/** The bench scenario's action and config with the drain's ceiling, against `platform`. */
export const drainOptions = (
  scenario: Scenario,
  platform: DrainPlatform,
  messages: number,
): DrainOptions => {
  const { config, action } = scenario;
  const service = actionDefinition(action).service;
  const paced = {
    ...config,
    platformRateLimits: { ...config.platformRateLimits, [service]: DRAIN_CEILING_PER_SECOND },
  };
  return {
    action,
    bodies: benchBodies('drain', messages),
    platform,
    platformSettings: platformSettings(scenario, platform.baseUrl),
    apiKey: BENCH_API_KEY,
    instances: scenario.maxConcurrency,
    batchSize: scenario.batchSize,
    ceilingPerSecond: DRAIN_CEILING_PER_SECOND,
    floorPerSecond: rateSharePerInstance(paced, action),
    platformLimitPerSecond: DRAIN_CEILING_PER_SECOND,
    timeoutMs: scenario.lambda.timeoutMs,
  };
};
