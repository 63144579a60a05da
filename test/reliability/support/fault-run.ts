/**
 * Runs the fault matrix's scenario through the real handlers with SQS semantics: the local
 * run's in-memory queues (batches of 10, visibility timeout on a virtual clock, receive counts,
 * partial batch failures, redrive to the DLQ after maxReceiveCount), its dead-letter queues,
 * result bus and API key source over a secret store, and one entity ledger (in memory) shared by
 * the write actions, against the platform simulator. One profile injects one kind of fault; the
 * report says how every message ended and what the platform holds for every entity.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import { ACTION_NAMES, type ActionName, actionDefinition } from '../../../lambdas/actions';
import { createActionHandler } from '../../../lambdas/core/entry/invocation-entry';
import type { DeadLetterReason, ResultEvent } from '../../../lambdas/core/entry/ports';
import { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { createMetrics } from '../../../lambdas/core/observability/observability';
import type { Disposition } from '../../../lambdas/core/pipeline/disposition';
import { type HttpTransport, postJson } from '../../../lambdas/core/platform/http';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import type { HttpSettings } from '../../../lambdas/core/platform/platform-settings';
import { orderedWith } from '../../../lambdas/entities';
import { applyInOrder, project } from '../../../local/convergence/model';
import { InMemoryDeadLetterQueue } from '../../../local/in-memory/dead-letter-queue';
import { InMemoryResultBus } from '../../../local/in-memory/result-bus';
import { InMemorySqsQueue } from '../../../local/in-memory/sqs-queue';
import { VirtualClock } from '../../../local/in-memory/virtual-clock';
import {
  type FaultSettings,
  type RunningSimulator,
  startSimulator,
} from '../../../local/simulator';
import { InMemoryApiKeySource, InMemorySecretStore } from '../../../testkit';
import {
  captureOutput,
  FAST_HTTP,
  failedIds,
  fakeContext,
  settingsFor,
  TENANT,
  testLogger,
} from './harness';
import { modelEvents, type Scenario, type ScenarioMessage } from './scenario';

/** Receives before SQS moves a message to the DLQ (the deployment's redrive policy). */
export const MAX_RECEIVE_COUNT = 5;
/** Lambda's SQS batch size. */
const BATCH_SIZE = 10;
const VISIBILITY_TIMEOUT_SECONDS = 180;
const KEY_MAX_AGE_SECONDS = 900;
/** Remaining time of a normal invocation (a 30 s function). */
const NORMAL_REMAINING_MS = 30_000;
export const INITIAL_API_KEY = 'sk-live-initial-2b7c9d4e1f';

/** What a profile can do while the run is under way. */
export interface RunControls {
  readonly simulator: RunningSimulator;
  readonly secretStore: InMemorySecretStore;
  /** Every key the run put in the secret store or on the platform. */
  readonly apiKeys: string[];
  /** The queues' virtual time (ms): it jumps ahead while messages wait to be redelivered. */
  queueTime(): number;
  /** Counts a fault injected outside the simulator's own fault settings. */
  inject(kind: string, count?: number): void;
}

export interface FaultProfile {
  readonly name: string;
  /** Simulator faults for the whole run (seeded: the same sequence every run). */
  readonly simulatorFaults?: FaultSettings;
  /** Called before HTTP request number `n` (1-based) leaves a client. */
  readonly beforeRequest?: (n: number, controls: RunControls) => void;
  /** Secret reads (1-based) that fail as Secrets Manager throttling would. */
  readonly secretReadFails?: (read: number) => boolean;
  /** Sends that fail first, per dead-letter queue. */
  readonly deadLetterSendFailures?: number;
  /** Publishes that fail first on the result bus. */
  readonly resultPublishFailures?: number;
  /** Remaining time in the Lambda context of invocation `n`; undefined = a normal 30 s. */
  readonly remainingTimeMs?: (invocation: number) => number | undefined;
  readonly http?: Partial<HttpSettings>;
  /**
   * Receives before the redrive policy (and the handler's last receive). A deployment derives
   * it from its retry window (220 for a day); the matrix keeps 5 to make last receives happen.
   * @default MAX_RECEIVE_COUNT
   */
  readonly maxReceiveCount?: number;
  /** Records of a batch processed at once. @default 10 */
  readonly recordConcurrency?: number;
  /**
   * Time the handlers' clock moves on with every HTTP request, on top of real time: makes a
   * Lambda deadline fall after a known number of requests instead of depending on speed.
   */
  readonly virtualMsPerRequest?: number;
  /** Wait after each phase so requests the simulator still holds are applied before the next. */
  readonly settleMs?: number;
}

export interface DeadLetterSeen {
  /** Absent when the redrive policy moved the message (SQS attaches no reason). */
  readonly reason?: DeadLetterReason;
  readonly movedBy: 'handler' | 'redrive';
  /** Receive count of the delivery in which the handler dead-lettered it. */
  readonly receiveCount?: number;
}

export interface MessageFate {
  readonly message: ScenarioMessage;
  /**
   * Codes of the receives that ended in success, in order: `SUCCESS`, `ALREADY_…`, or a skip
   * the ledger knows to be right (`STALE_SKIPPED`, `DUPLICATE`).
   */
  readonly successes: readonly string[];
  /** How each receive ended (`applied SUCCESS`, `retry ENTITY_BUSY`, …), for diagnosis. */
  readonly receipts: readonly string[];
  /** Reads: result events published with its correlation id. */
  readonly results: number;
  readonly deadLetters: readonly DeadLetterSeen[];
  /** Receives it took. */
  readonly receives: number;
}

/** Entity (`record <clientId>` / `user <loginUserId>`, as the model names it) → its state. */
export type EntityStates = ReadonlyMap<string, string>;

export interface RunReport {
  readonly name: string;
  /** The receives the run's queues allowed (the profile's, else MAX_RECEIVE_COUNT). */
  readonly maxReceiveCount: number;
  readonly fates: readonly MessageFate[];
  /** Kind → count, from the simulator's fault counters and the run's own injections. */
  readonly faults: Readonly<Record<string, number>>;
  /** What the platform holds for every entity of the scenario (the model's projection). */
  readonly state: EntityStates;
  /**
   * Entities with a request the client gave up on (timed out): the platform may still apply
   * it, after a newer request of the same entity (docs/decisions.md, known limits).
   */
  readonly abandoned: ReadonlySet<string>;
  /** Writes the platform applied (its history). */
  readonly platformWrites: number;
  readonly invocations: number;
  /** Invocations that threw instead of reporting failed records. */
  readonly crashedInvocations: number;
  readonly requests: number;
  readonly resultEvents: readonly ResultEvent[];
  /** Everything the handlers wrote to stdout / stderr. */
  readonly logs: string;
  readonly apiKeys: readonly string[];
}

/** Secret store whose reads fail on chosen read numbers (throttling / an outage). */
class FlakySecretStore extends InMemorySecretStore {
  #reads = 0;
  failures = 0;

  constructor(
    value: string,
    private readonly fails: (read: number) => boolean,
  ) {
    super(value);
  }

  override async read() {
    this.#reads += 1;
    if (this.fails(this.#reads)) {
      this.failures += 1;
      const error = new Error('Rate exceeded');
      error.name = 'ThrottlingException';
      throw error;
    }
    return super.read();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The entities a platform request is about, named as the model names them. */
const entitiesIn = (body: string): string[] => [
  ...[...body.matchAll(/"clientId":"([^"]+)"/g)].map((m) => `record ${m[1]}`),
  ...[...body.matchAll(/"loginUserId":"([^"]+)"/g)].map((m) => `user ${m[1]}`),
];

/**
 * What the platform must hold for every entity the messages name: the model (their events
 * applied once each, in `occurredAt` order, to a fresh platform with no faults).
 */
export const modelState = async (
  messages: readonly ScenarioMessage[],
  named: readonly ScenarioMessage[] = messages,
): Promise<EntityStates> => {
  const simulator = await startSimulator({ ...TENANT, apiKey: INITIAL_API_KEY, seed: 20_260_704 });
  try {
    const { baseUrl: _, ...settings } = settingsFor(simulator.baseUrl);
    await applyInOrder(modelEvents(messages), simulator, settings, INITIAL_API_KEY);
    return project(simulator, modelEvents(named));
  } finally {
    await simulator.close();
  }
};

/** Runs `scenario` once under `profile` on a fresh simulator and in-memory AWS side. */
export const runScenario = async (
  scenario: Scenario,
  profile: FaultProfile,
): Promise<RunReport> => {
  const simulator = await startSimulator({ ...TENANT, apiKey: INITIAL_API_KEY, seed: 20_260_703 });
  const output = captureOutput();
  try {
    return await run(scenario, profile, simulator, () => output.writes.join(''));
  } finally {
    output.stop();
    await simulator.close();
  }
};

const run = async (
  scenario: Scenario,
  profile: FaultProfile,
  simulator: RunningSimulator,
  logs: () => string,
): Promise<RunReport> => {
  const clock = new VirtualClock(Date.parse('2026-07-01T08:00:00Z'));
  const secretStore = new FlakySecretStore(
    INITIAL_API_KEY,
    profile.secretReadFails ?? (() => false),
  );
  const injected: Record<string, number> = {};
  const controls: RunControls = {
    simulator,
    secretStore,
    apiKeys: [INITIAL_API_KEY],
    queueTime: () => clock.now(),
    inject: (kind, count = 1) => {
      injected[kind] = (injected[kind] ?? 0) + count;
    },
  };
  if (profile.simulatorFaults) simulator.setFaults(profile.simulatorFaults);

  let requests = 0;
  let skewMs = 0;
  const abandoned = new Set<string>();
  const handlerNow = (): number => Date.now() + skewMs;
  const countingTransport: HttpTransport = async (request) => {
    requests += 1;
    skewMs += profile.virtualMsPerRequest ?? 0;
    profile.beforeRequest?.(requests, controls);
    const result = await postJson(request);
    if (result.kind === 'network-error' && result.code === 'TIMEOUT') {
      for (const entity of entitiesIn(request.body)) abandoned.add(entity);
    }
    return result;
  };
  // One table for every function, as deployed; leases run on the handlers' clock.
  const ledger = new EntityLedger({ store: new InMemoryLedgerStore(), now: handlerNow });
  const observations = new Map<string, Disposition[]>();

  const resultBus = new InMemoryResultBus();
  if (profile.resultPublishFailures) resultBus.failNextPublishes(profile.resultPublishFailures);
  let publishFailures = 0;
  const receiveCounts = new Map<string, number>();
  const dlqSendReceive = new Map<string, number>();
  const settings = settingsFor(simulator.baseUrl);
  const http = { ...FAST_HTTP, ...profile.http };

  const maxReceiveCount = profile.maxReceiveCount ?? MAX_RECEIVE_COUNT;
  const lanes = new Map(
    ACTION_NAMES.map((action) => {
      const dlq = new InMemoryDeadLetterQueue(`${action}-dlq`);
      if (profile.deadLetterSendFailures) dlq.failNextSends(profile.deadLetterSendFailures);
      const queue = new InMemorySqsQueue({
        name: action,
        visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
        redrivePolicy: { maxReceiveCount, deadLetterQueue: dlq },
        clock,
      });
      // One key cache per function, as each Lambda container has its own.
      const apiKey = new InMemoryApiKeySource({
        store: secretStore,
        maxAgeSeconds: KEY_MAX_AGE_SECONDS,
        now: () => clock.now(),
      });
      const clientDeps = { transport: countingTransport, now: handlerNow };
      const handler = createActionHandler(actionDefinition(action), {
        platform: new PlatformCaller(settings, apiKey, http, clientDeps),
        deadLetters: {
          send: async (body, reason) => {
            await dlq.send(body, reason);
            dlqSendReceive.set(
              reason.sourceMessageId,
              receiveCounts.get(reason.sourceMessageId) ?? 0,
            );
          },
        },
        results: {
          publish: async (event) => {
            try {
              await resultBus.publish(event);
            } catch (error) {
              publishFailures += 1;
              throw error;
            }
          },
        },
        logger: testLogger(action),
        metrics: createMetrics(action),
        maxReceiveCount,
        now: handlerNow,
        ...orderedWith(actionDefinition(action), ledger),
        campaignRegion: settings.campaignRegion,
        observer: {
          disposition: (disposition) => {
            const seen = observations.get(disposition.messageId) ?? [];
            observations.set(disposition.messageId, [...seen, disposition]);
          },
        },
        ...(profile.recordConcurrency === undefined
          ? {}
          : { recordConcurrency: profile.recordConcurrency }),
      });
      return [action, { queue, dlq, handler }] as const;
    }),
  );
  const lane = (action: ActionName) => {
    const found = lanes.get(action);
    if (!found) throw new Error(`no lane for ${action}`);
    return found;
  };

  const byQueueId = new Map<string, ScenarioMessage>();
  const queueIdOf = new Map<ScenarioMessage, string>();
  let invocations = 0;
  let crashedInvocations = 0;

  const drain = async (): Promise<void> => {
    for (let round = 0; round < 100_000; round += 1) {
      let received = 0;
      for (const action of ACTION_NAMES) {
        const { queue, handler } = lane(action);
        const records = queue.receive(BATCH_SIZE);
        if (records.length === 0) continue;
        received += records.length;
        invocations += 1;
        for (const record of records) {
          receiveCounts.set(record.messageId, Number(record.attributes.ApproximateReceiveCount));
        }
        const remaining = profile.remainingTimeMs?.(invocations);
        if (remaining !== undefined) controls.inject('lambdaDeadline');
        let failed: Set<string>;
        try {
          const response = (await handler(
            { Records: records },
            fakeContext(remaining ?? NORMAL_REMAINING_MS, `invocation-${invocations}`),
          )) as SQSBatchResponse;
          failed = new Set(failedIds(response));
        } catch {
          // Lambda returns a crashed invocation's whole batch to the queue.
          crashedInvocations += 1;
          failed = new Set(records.map((r) => r.messageId));
        }
        for (const record of records) {
          if (!failed.has(record.messageId)) queue.deleteMessage(record.receiptHandle);
        }
      }
      if (received > 0) continue;
      const queues = [...lanes.values()].map((l) => l.queue);
      const next = queues.map((q) => q.nextVisibleAt()).filter((t): t is number => t !== undefined);
      if (next.length === 0) {
        if (queues.every((q) => q.size === 0)) return;
        continue;
      }
      clock.advanceTo(Math.min(...next));
    }
    throw new Error('the queues did not drain');
  };

  for (const phase of scenario.phases) {
    for (const message of phase) {
      const id = lane(message.action).queue.send(message.body);
      byQueueId.set(id, message);
      queueIdOf.set(message, id);
    }
    await drain();
    if (profile.settleMs) await sleep(profile.settleMs);
  }

  const letters = new Map<string, DeadLetterSeen[]>();
  for (const { dlq } of lanes.values()) {
    for (const letter of dlq.letters) {
      const id = letter.sourceMessageId ?? '';
      const seen: DeadLetterSeen = {
        movedBy: letter.movedBy,
        ...(letter.reason ? { reason: letter.reason } : {}),
        ...(dlqSendReceive.has(id) ? { receiveCount: dlqSendReceive.get(id) } : {}),
      };
      letters.set(id, [...(letters.get(id) ?? []), seen]);
    }
  }
  const resultEvents = resultBus.events;
  const fates = scenario.messages.map((message): MessageFate => {
    const id = queueIdOf.get(message) ?? '';
    const observed = observations.get(id) ?? [];
    return {
      message,
      successes: observed.filter((o) => o.kind === 'applied').map((o) => o.outcome.code),
      receipts: observed.map((o) => `${o.kind} ${o.outcome.code}`),
      results: resultEvents.filter((e) => e.correlationId === message.id).length,
      deadLetters: letters.get(id) ?? [],
      receives: receiveCounts.get(id) ?? 0,
    };
  });

  const faults: Record<string, number> = { ...injected };
  for (const [kind, count] of Object.entries(simulator.stats.faults)) {
    if (count > 0) faults[kind] = (faults[kind] ?? 0) + count;
  }
  const dlqFailures = [...lanes.values()].reduce((sum, l) => sum + l.dlq.failedSends, 0);
  if (dlqFailures > 0) faults.deadLetterSendFailed = dlqFailures;
  if (secretStore.failures > 0) faults.secretReadFailed = secretStore.failures;
  if (publishFailures > 0) faults.resultPublishFailed = publishFailures;
  if (simulator.stats.unauthorized > 0) faults.unauthorized401 = simulator.stats.unauthorized;
  if (simulator.stats.delayed > 0) faults.delayedPastTimeout = simulator.stats.delayed;

  return {
    name: profile.name,
    maxReceiveCount,
    fates,
    faults,
    state: project(simulator, modelEvents(scenario.messages)),
    abandoned,
    platformWrites: simulator.state.history.length,
    invocations,
    crashedInvocations,
    requests,
    resultEvents,
    logs: logs(),
    apiKeys: controls.apiKeys,
  };
};
