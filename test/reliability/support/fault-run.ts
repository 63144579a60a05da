/**
 * Runs the fault matrix's scenario through the real handlers with SQS semantics: the local
 * run's in-memory queues (batches of 10, visibility timeout on a virtual clock, receive counts,
 * partial batch failures, redrive to the DLQ after maxReceiveCount), its dead-letter queues,
 * result bus and API key source over a secret store, against the platform simulator. One
 * profile injects one kind of fault; the report says where every message ended.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import { ACTION_NAMES, type ActionName } from '../../../lambdas/actions';
import { createActionHandler } from '../../../lambdas/core/action-handler';
import { type HttpTransport, postJson } from '../../../lambdas/core/http';
import { createMetrics } from '../../../lambdas/core/observability';
import type { HttpSettings } from '../../../lambdas/core/platform-settings';
import type { DeadLetterReason, ResultEvent } from '../../../lambdas/core/ports';
import { ProvisioningClient } from '../../../lambdas/core/provisioning-client';
import { RealtimeClient } from '../../../lambdas/core/realtime-client';
import { LocalApiKeySource, LocalSecretStore } from '../../../local/in-memory/api-key-source';
import { InMemoryDeadLetterQueue } from '../../../local/in-memory/dead-letter-queue';
import { InMemoryResultBus } from '../../../local/in-memory/result-bus';
import { InMemorySqsQueue } from '../../../local/run/sqs-queue';
import { VirtualClock } from '../../../local/run/virtual-clock';
import {
  type AppliedOperation,
  type FaultSettings,
  type RunningSimulator,
  startSimulator,
} from '../../../local/simulator';
import {
  captureOutput,
  FAST_HTTP,
  failedIds,
  fakeContext,
  settingsFor,
  TENANT,
  testLogger,
} from './harness';
import type { Scenario, ScenarioMessage } from './scenario';

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
  readonly secretStore: LocalSecretStore;
  /** Every key the run put in the secret store or on the platform. */
  readonly apiKeys: string[];
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
  /** Writes: times the simulator applied it in its phase. Reads: result events published. */
  readonly applied: number;
  readonly deadLetters: readonly DeadLetterSeen[];
  /** Receives it took. */
  readonly receives: number;
}

/** A record or user as the final state comparison sees it (no generated ids or times). */
export type CanonicalState = readonly string[];

export interface RunReport {
  readonly name: string;
  readonly fates: readonly MessageFate[];
  /** Kind → count, from the simulator's fault counters and the run's own injections. */
  readonly faults: Readonly<Record<string, number>>;
  readonly finalState: CanonicalState;
  /** The final state without the clientId item an add stores (see `canonicalState`). */
  readonly finalStateIgnoringClientIdItem: CanonicalState;
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
class FlakySecretStore extends LocalSecretStore {
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

/**
 * The final records and users, sorted, without generated ids and times. With
 * `ignoreClientIdItem`, the clientId data item the platform stores on add (and the positions
 * it shifts) is left out.
 */
const canonicalState = (
  simulator: RunningSimulator,
  ignoreClientIdItem: boolean,
): CanonicalState => {
  const snapshot = simulator.state.snapshot();
  const records = snapshot.campaigns.flatMap((campaign) =>
    campaign.records.map((r) =>
      JSON.stringify([
        campaign.name,
        r.clientId,
        r.workedState,
        r.skillQueue,
        r.preferredAgent,
        r.timeZone,
        r.nextEarliestWorkTimeMillis,
        ignoreClientIdItem
          ? r.previewRecordData
              .filter((item) => !(item.key === 'Id' && item.value === r.clientId))
              .map((item) => [item.key, item.value])
          : r.previewRecordData.map((item) => [item.key, item.value, item.displayOrder]),
      ]),
    ),
  );
  const users = snapshot.users.map((u) =>
    JSON.stringify([u.loginUserId, u.firstName, u.lastName, u.inCloudConnect]),
  );
  return [...records, ...users].sort();
};

/** Writes the simulator applied for `message` within its phase's slice of the history. */
const appliesOf = (message: ScenarioMessage, history: readonly AppliedOperation[]): number => {
  const expect = message.expect;
  if (expect.kind !== 'write') return 0;
  return history.filter((op) => {
    const sameOp =
      expect.op === 'addOrUpdateCampaignRecord'
        ? op.action.startsWith('addOrUpdateCampaignRecord')
        : op.action === expect.op;
    return (
      sameOp &&
      (expect.campaignName === undefined || op.campaignName === expect.campaignName) &&
      (expect.clientId === undefined || op.clientId === expect.clientId) &&
      (expect.loginUserId === undefined || op.loginUserId === expect.loginUserId)
    );
  }).length;
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
    inject: (kind, count = 1) => {
      injected[kind] = (injected[kind] ?? 0) + count;
    },
  };
  if (profile.simulatorFaults) simulator.setFaults(profile.simulatorFaults);

  let requests = 0;
  let skewMs = 0;
  const handlerNow = (): number => Date.now() + skewMs;
  const countingTransport: HttpTransport = (request) => {
    requests += 1;
    skewMs += profile.virtualMsPerRequest ?? 0;
    profile.beforeRequest?.(requests, controls);
    return postJson(request);
  };

  const resultBus = new InMemoryResultBus();
  if (profile.resultPublishFailures) resultBus.failNextPublishes(profile.resultPublishFailures);
  let publishFailures = 0;
  const receiveCounts = new Map<string, number>();
  const dlqSendReceive = new Map<string, number>();
  const settings = settingsFor(simulator.baseUrl);
  const http = { ...FAST_HTTP, ...profile.http };

  const lanes = new Map(
    ACTION_NAMES.map((action) => {
      const dlq = new InMemoryDeadLetterQueue(`${action}-dlq`);
      if (profile.deadLetterSendFailures) dlq.failNextSends(profile.deadLetterSendFailures);
      const queue = new InMemorySqsQueue({
        name: action,
        visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
        redrivePolicy: { maxReceiveCount: MAX_RECEIVE_COUNT, deadLetterQueue: dlq },
        clock,
      });
      // One key cache per function, as each Lambda container has its own.
      const apiKey = new LocalApiKeySource({
        store: secretStore,
        maxAgeSeconds: KEY_MAX_AGE_SECONDS,
        now: () => clock.now(),
      });
      const clientDeps = { transport: countingTransport, now: handlerNow };
      const handler = createActionHandler(action, {
        clients: {
          realtime: new RealtimeClient(settings, apiKey, http, clientDeps),
          provisioning: new ProvisioningClient(settings, apiKey, http, clientDeps),
        },
        apiKey,
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
        maxReceiveCount: MAX_RECEIVE_COUNT,
        now: handlerNow,
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

  const phaseHistory: { from: number; to: number }[] = [];
  for (const phase of scenario.phases) {
    const from = simulator.state.history.length;
    for (const message of phase) {
      const id = lane(message.action).queue.send(message.body);
      byQueueId.set(id, message);
      queueIdOf.set(message, id);
    }
    await drain();
    if (profile.settleMs) await sleep(profile.settleMs);
    phaseHistory.push({ from, to: simulator.state.history.length });
  }

  const history = simulator.state.history;
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
    const range = phaseHistory[message.phase - 1] ?? { from: 0, to: 0 };
    const applied =
      message.expect.kind === 'read'
        ? resultEvents.filter((e) => e.correlationId === message.id).length
        : appliesOf(message, history.slice(range.from, range.to));
    return {
      message,
      applied,
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
    fates,
    faults,
    finalState: canonicalState(simulator, false),
    finalStateIgnoringClientIdItem: canonicalState(simulator, true),
    invocations,
    crashedInvocations,
    requests,
    resultEvents,
    logs: logs(),
    apiKeys: controls.apiKeys,
  };
};
