import { randomBytes } from 'node:crypto';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import {
  ACTION_NAMES,
  type ActionName,
  actionDefinition,
  isActionName,
} from '../../lambdas/actions';
import { DEFAULT_BREAKER_SETTINGS } from '../../lambdas/core/circuit-breaker';
import type { Disposition } from '../../lambdas/core/disposition';
import { declaredCorrelationId } from '../../lambdas/core/envelope';
import { InMemoryBrakeStore } from '../../lambdas/core/in-memory-brake-store';
import { InMemoryBreakerStore } from '../../lambdas/core/in-memory-breaker-store';
import { createActionHandler } from '../../lambdas/core/invocation-entry';
import { EntityLedger } from '../../lambdas/core/ledger/entity-ledger';
import { MassDeleteBrake } from '../../lambdas/core/mass-delete-brake';
import { PlatformCaller } from '../../lambdas/core/platform-caller';
import { guardFor } from '../../lambdas/core/platform-guard';
import type { PlatformSettings } from '../../lambdas/core/platform-settings';
import type {
  DeadLetterReason,
  DeadLetterSink,
  HeldMessage,
  ResultEvent,
  ResultPublisher,
} from '../../lambdas/core/ports';
import { orderedWith } from '../../lambdas/entities';
import { DELETE_BRAKE_DEFAULTS } from '../../lib/config';
import { counted } from '../../ops/counted';
import { type EventBridgeEvent, lambdaContext } from '../../testkit';
import type { Backend } from '../backends';
import { type RouteDecision, routeEvent } from '../in-memory/event-rules';
import type { FaultSettings, RunningSimulator } from '../simulator';
import { seededRandom } from '../simulator/faults';
import { toDeliveredEvent } from './delivered-event';
import type { InputEvent, Scenario } from './event-input';
import { createRunMetrics, type LogSink, RunLogger } from './run-logger';
import type { RunSettings } from './run-settings';

/** Where a message ended; `held`: parked by the mass-delete brake for an operator to decide. */
export type FateKind = 'applied' | 'held' | 'dead-lettered' | 'redriven' | 'unrouted' | 'lost';

/** Outcome codes for fates the handler did not decide. */
export const REDRIVEN = 'REDRIVEN';
export const UNROUTED = 'UNROUTED';
export const LOST = 'LOST';
/** Shown for a receive whose dead-letter send failed (the message is redelivered). */
export const DLQ_SEND_FAILED = 'DLQ_SEND_FAILED';

export interface MessageFate {
  /** Position of the event in the whole run (input order). */
  readonly sequence: number;
  /** 1-based phase (event file) number. */
  readonly phase: number;
  readonly file: string;
  /** The action whose queue it went to; undefined when unrouted to no known action. */
  readonly action: ActionName | undefined;
  readonly detailType: string;
  readonly correlationId: string;
  readonly kind: FateKind;
  /** `SUCCESS`, `ALREADY_EXISTS`, `INVALID_MESSAGE`, … or REDRIVEN / UNROUTED / LOST. */
  readonly code: string;
  /** SQS receives it took (0 when it never reached a queue). */
  readonly receives: number;
  /** Why it is in the DLQ / unrouted / lost. */
  readonly reason?: { readonly category?: string; readonly message: string };
  /** Short description of a read's published result (never record data). */
  readonly result?: string;
}

export interface PhaseInfo {
  readonly index: number;
  readonly total: number;
  readonly file: string;
  readonly events: number;
  readonly routed: number;
}

export interface RetryInfo {
  readonly action: ActionName;
  readonly correlationId: string;
  readonly code: string;
  readonly receive: number;
  readonly maxReceiveCount: number;
}

/** Progress as it happens, for the console. */
export interface RunObserver {
  phaseStarted?(info: PhaseInfo): void;
  fate?(fate: MessageFate): void;
  retry?(info: RetryInfo): void;
  note?(text: string): void;
}

/** `--faults`: every kind of trouble the handlers must survive, often enough to be seen. */
export const RUN_FAULTS: FaultSettings = {
  latencyMs: 20,
  serverErrorRate: 0.1,
  throttleRate: 0.06,
  retryAfterSeconds: 1,
  connectionResetRate: 0.03,
  failedStatusRate: 0.04,
  lostResponseRate: 0.04,
};

/** With faults on, the API key is rotated after this many handler invocations. */
export const ROTATE_KEY_AFTER_INVOCATIONS = 3;

export interface PipelineOptions {
  readonly scenario: Scenario;
  readonly settings: RunSettings;
  readonly backend: Backend;
  /** Already started and seeded; its base URL is the handlers' platform. */
  readonly simulator: RunningSimulator;
  readonly logSink: LogSink;
  /** Simulator faults, one API key rotation and one failed dead-letter send. */
  readonly faults: boolean;
  /** Poll and invoke every action's queue at the same time, as separate functions run. */
  readonly concurrentQueues?: boolean;
  readonly observer?: RunObserver;
  /**
   * A platform outage from the start of the run, this long in the queues' time: every request
   * fails (HTTP 503) until it is over. @default none
   */
  readonly outageMs?: number;
  /**
   * How a phase's events reach the bus; resolves to their ids, in order. `--reconcile` sends a
   * plan's repairs through the bulk sender's checkpointed delivery. @default backend.putEvents
   */
  readonly deliver?: (events: readonly EventBridgeEvent[]) => Promise<string[]>;
}

/** The simulator's faults while the platform is down. */
export const OUTAGE_FAULTS: FaultSettings = { serverErrorRate: 1 };

export interface RunResult {
  /** One per input event, in input order. */
  readonly fates: readonly MessageFate[];
  readonly invocations: number;
  readonly resultEvents: number;
  readonly keyRotations: number;
  /**
   * Platform requests that were in-process retries of the same call (details in the log);
   * undefined where the run cannot see them (`--deployed`: the functions count them in EMF).
   */
  readonly inProcessRetries: number | undefined;
  /** Dead-letter sends that failed on purpose (`--faults`). */
  readonly failedDeadLetterSends: number;
  /** Platform requests made while the outage lasted (probes and the calls before the breaker opened). */
  readonly requestsDuringOutage: number;
  /** Times a circuit breaker opened, and probes it let through. */
  readonly breakerOpenings: number;
  readonly probes: number;
  /** Messages the mass-delete brakes parked (the held queues, in memory). */
  readonly held: readonly HeldMessage[];
}

interface Tracked {
  readonly sequence: number;
  readonly phase: number;
  readonly input: InputEvent;
  readonly decision: RouteDecision;
  readonly action: ActionName | undefined;
  correlationId: string;
  receives: number;
  fate?: MessageFate;
}

const MAX_ROUNDS = 100_000;
/** The AWS account the local run's functions and events claim. */
const LOCAL_ACCOUNT = '000000000000';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One line about a read's result; counts and flags only, never record data. */
export const summariseResult = (result: unknown): string | undefined => {
  if (!isRecord(result)) return undefined;
  if (Array.isArray(result.records)) {
    const n = result.records.length;
    return `${counted(n, 'record')} found`;
  }
  if (typeof result.exists === 'boolean') {
    if (!result.exists) return 'user does not exist';
    return result.cloudConnectStatus === 'EXISTS'
      ? 'user exists (also in the contact-center instance)'
      : 'user exists';
  }
  return undefined;
};

const eventIdOf = (body: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(body);
    return isRecord(parsed) && typeof parsed.id === 'string' ? parsed.id : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Drives the real handlers over the backend's queues: phase by phase (one event file each),
 * puts the events on the bus, then polls every action queue in batches, invokes the action's
 * handler, deletes what it did not report as failed, and lets the visibility timeout bring the
 * rest back, until every queue is empty. Each message's fate is reported as soon as it is final.
 */
export const runPipeline = async (options: PipelineOptions): Promise<RunResult> => {
  const { scenario, settings, backend, simulator, logSink, faults } = options;
  const observer = options.observer ?? {};

  const byEventId = new Map<string, Tracked>();
  const byMessageId = new Map<string, Tracked>();
  const tracked: Tracked[] = [];
  /** How each message's latest receive ended, as the handler reported it. */
  const observed = new Map<string, Disposition>();
  const letters = new Map<string, DeadLetterReason>();
  /** Messages whose dead-letter send failed in their latest receive. */
  const failedSends = new Set<string>();
  const results = new Map<string, string>();
  let resultEvents = 0;
  let invocations = 0;
  let keyRotations = 0;
  let inProcessRetries = 0;
  let failedDeadLetterSends = 0;
  let deadLetterFaultPending = faults;

  const finish = (
    item: Tracked,
    fate: Omit<
      MessageFate,
      'sequence' | 'phase' | 'file' | 'action' | 'detailType' | 'correlationId' | 'receives'
    >,
  ): void => {
    if (item.fate) return;
    const result = results.get(item.correlationId);
    item.fate = {
      sequence: item.sequence,
      phase: item.phase,
      file: item.input.file,
      action: item.action,
      detailType: item.input.detailType,
      correlationId: item.correlationId,
      receives: item.receives,
      ...(fate.kind === 'applied' && result !== undefined ? { result } : {}),
      ...fate,
    };
    observer.fate?.(item.fate);
  };

  const platform: PlatformSettings = {
    platformCode: settings.tenant.platformCode,
    companyCode: settings.tenant.companyCode,
    environmentName: settings.tenant.environmentName,
    baseUrl: simulator.baseUrl,
    campaignRegion: settings.campaignRegion,
    secretsRegion: settings.secretsRegion,
  };

  /** Records what the handler dead-lettered; with faults, fails one send that can be retried. */
  const deadLetterSink = (action: ActionName, inner: DeadLetterSink): DeadLetterSink => ({
    send: async (body, reason) => {
      const item = byMessageId.get(reason.sourceMessageId);
      const receivesLeft =
        item !== undefined && item.receives < settings.actions[action].maxReceiveCount;
      if (deadLetterFaultPending && receivesLeft) {
        deadLetterFaultPending = false;
        failedDeadLetterSends += 1;
        observer.note?.(
          `fault: the ${action} DLQ send for ${reason.correlationId} fails once; the message is redelivered, not lost`,
        );
        failedSends.add(reason.sourceMessageId);
        throw new Error(`SendMessage to the ${action} DLQ failed (simulated)`);
      }
      try {
        await inner.send(body, reason);
      } catch (error) {
        failedSends.add(reason.sourceMessageId);
        throw error;
      }
      letters.set(reason.sourceMessageId, reason);
    },
  });

  const resultPublisher = (inner: ResultPublisher): ResultPublisher => ({
    publish: async (event: ResultEvent) => {
      await inner.publish(event);
      resultEvents += 1;
      const summary = summariseResult(event.result);
      if (summary !== undefined) results.set(event.correlationId, summary);
    },
  });

  const startedAt = backend.queueNow();
  const outageEnd = options.outageMs === undefined ? undefined : startedAt + options.outageMs;
  let platformDown = false;
  let requestsDuringOutage = 0;
  let breakerOpenings = 0;
  let probes = 0;
  const at = (): string => {
    const seconds = Math.round((backend.queueNow() - startedAt) / 1000);
    const h = Math.floor(seconds / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    return `t+${h}h${String(m).padStart(2, '0')}m${String(seconds % 60).padStart(2, '0')}s`;
  };
  /** The outage starts with the run and ends at its time; faults as the run set them otherwise. */
  const followOutage = (): void => {
    if (outageEnd === undefined) return;
    const down = backend.queueNow() < outageEnd;
    if (down === platformDown) return;
    platformDown = down;
    simulator.setFaults(down ? OUTAGE_FAULTS : faults ? RUN_FAULTS : {});
    observer.note?.(
      down
        ? `${at()} outage: the platform answers every request with HTTP 503`
        : `${at()} the platform is back`,
    );
  };

  // The breakers of one deployment share their state (one table), as here one store does.
  const breakerStore = new InMemoryBreakerStore();
  const transitions = new Map<string, number>();
  const breakerEvents = {
    changed: (service: string, state: 'open' | 'closed' | 'probe') => {
      if (state === 'open') breakerOpenings += 1;
      if (state === 'probe') probes += 1;
      // A long outage probes hundreds of times: the first cycles, every 60th, and the close.
      const seen = (transitions.get(service) ?? 0) + 1;
      transitions.set(service, seen);
      if (state !== 'closed' && seen > 4 && seen % 120 >= 2) return;
      observer.note?.(
        state === 'open'
          ? `${at()} ${service} circuit breaker OPEN: messages wait in their queues, no requests for ${DEFAULT_BREAKER_SETTINGS.coolDownMs / 1000} s`
          : state === 'probe'
            ? `${at()} ${service} circuit breaker half-open: one probe request`
            : `${at()} ${service} circuit breaker CLOSED: the backlog drains`,
      );
    },
  };

  // One count per destructive action for all its functions, as the ledger table's brake items
  // are; the deployment's default limit (deleteBrake), counted in the queues' time.
  const brakeStore = new InMemoryBrakeStore();
  const held: HeldMessage[] = [];
  const brakeFor = (action: ActionName) =>
    actionDefinition(action).destructive === undefined
      ? {}
      : {
          brake: {
            gate: new MassDeleteBrake(
              action,
              brakeStore,
              {
                limit: DELETE_BRAKE_DEFAULTS.limit,
                windowMs: DELETE_BRAKE_DEFAULTS.windowMinutes * 60_000,
              },
              { now: () => backend.queueNow() },
            ),
            held: {
              hold: async (message: HeldMessage) => {
                held.push(message);
              },
            },
          },
        };

  const backoffRandom = seededRandom(1);
  const enabledActions = ACTION_NAMES.filter((action) => settings.actions[action].enabled);
  // One ledger for all write actions, as the deployment's one table.
  const ledger = new EntityLedger({ store: backend.ledger });
  const handlers = new Map(
    enabledActions.map((action) => {
      const apiKey = backend.apiKeySource(action);
      const handler = createActionHandler(actionDefinition(action), {
        platform: new PlatformCaller(
          platform,
          apiKey,
          {},
          {
            observer: {
              attempt: (attempt) => {
                if (attempt.attempt > 1) inProcessRetries += 1;
                if (platformDown) requestsDuringOutage += 1;
              },
            },
            guard: guardFor(actionDefinition(action).service, {
              store: breakerStore,
              now: () => backend.queueNow(),
              events: breakerEvents,
            }),
          },
        ),
        retrySchedule: settings.retry,
        // The backoff's jitter from a seed: a run shows the same waits every time.
        random: backoffRandom,
        rescheduler: backend.rescheduler(action),
        queueClock: () => backend.queueNow(),
        ...orderedWith(actionDefinition(action), ledger),
        campaignRegion: settings.campaignRegion,
        deadLetters: deadLetterSink(action, backend.deadLetterSink(action)),
        results: resultPublisher(backend.resultPublisher(action)),
        logger: new RunLogger({ action, sink: logSink }),
        metrics: createRunMetrics(action, logSink),
        maxReceiveCount: settings.actions[action].maxReceiveCount,
        observer: { disposition: (d) => observed.set(d.messageId, d) },
        ...brakeFor(action),
      });
      return [action, handler] as const;
    }),
  );

  const trackedFor = (action: ActionName, record: SQSRecord): Tracked => {
    const known = byMessageId.get(record.messageId);
    if (known) return known;
    const eventId = eventIdOf(record.body);
    const item = eventId === undefined ? undefined : byEventId.get(eventId);
    if (item) {
      byMessageId.set(record.messageId, item);
      return item;
    }
    // Not one of ours (should not happen): follow it anyway so nothing goes unreported.
    const stranger: Tracked = {
      sequence: tracked.length,
      phase: 0,
      input: {
        file: '(unknown)',
        index: 0,
        format: 'eventbridge',
        source: '?',
        detailType: action,
        detail: {},
        envelope: {},
      },
      decision: { routed: true, action },
      action,
      correlationId: eventId ?? record.messageId,
      receives: 0,
    };
    tracked.push(stranger);
    byMessageId.set(record.messageId, stranger);
    return stranger;
  };

  const takeRedriven = async (): Promise<void> => {
    for (const moved of await backend.takeRedriven()) {
      const eventId = eventIdOf(moved.body);
      const item = eventId === undefined ? undefined : byEventId.get(eventId);
      if (!item) continue;
      finish(item, {
        kind: 'redriven',
        code: REDRIVEN,
        reason: {
          message: `moved to the DLQ by the queue's redrive policy after ${counted(item.receives, 'receive')}, without a reason`,
        },
      });
    }
  };

  const invoke = async (action: ActionName, records: SQSRecord[]): Promise<void> => {
    const handler = handlers.get(action);
    if (!handler) throw new Error(`no handler for ${action}`);
    // Counted before the rotation awaits, so queues polled at once rotate it only once.
    const invocation = invocations;
    invocations += 1;
    if (faults && invocation === ROTATE_KEY_AFTER_INVOCATIONS) {
      const newKey = randomBytes(24).toString('base64url');
      await backend.rotateApiKey(newKey);
      simulator.setApiKey(newKey);
      keyRotations += 1;
      observer.note?.(
        'fault: API key rotated in the secret; the platform now rejects the old key (401 → one refresh)',
      );
    }
    const items = records.map((record) => {
      const item = trackedFor(action, record);
      item.receives = Number(record.attributes.ApproximateReceiveCount) || item.receives + 1;
      letters.delete(record.messageId);
      observed.delete(record.messageId);
      failedSends.delete(record.messageId);
      return item;
    });

    let failed: Set<string>;
    try {
      const response = (await handler(
        { Records: records },
        // The remaining time counts down from the function timeout in real time, so the
        // handler's in-process retries stop where they would on AWS.
        lambdaContext({
          functionName: `contact-center-sync-local-${action}`,
          region: settings.campaignRegion,
          account: LOCAL_ACCOUNT,
          logStreamName: 'local',
          timeoutMs: settings.actions[action].timeoutSeconds * 1000,
        }),
      )) as SQSBatchResponse | undefined;
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      // A crashed invocation: Lambda returns the whole batch to the queue.
      observer.note?.(
        `${action} invocation failed (${error instanceof Error ? error.message : String(error)}); the batch is redelivered`,
      );
      failed = new Set(records.map((r) => r.messageId));
    }
    await backend.deleteMessages(
      action,
      records.filter((r) => !failed.has(r.messageId)),
    );

    records.forEach((record, i) => {
      const item = items[i];
      if (!item) return;
      const observation = observed.get(record.messageId);
      if (observation) item.correlationId = observation.correlationId;
      if (failed.has(record.messageId)) {
        observer.retry?.({
          action,
          correlationId: item.correlationId,
          code: failedSends.has(record.messageId)
            ? DLQ_SEND_FAILED
            : (observation?.outcome.code ?? 'BATCH_ITEM_FAILURE'),
          receive: item.receives,
          maxReceiveCount: settings.actions[action].maxReceiveCount,
        });
        return;
      }
      const letter = letters.get(record.messageId);
      if (letter) {
        item.correlationId = letter.correlationId;
        finish(item, {
          kind: 'dead-lettered',
          code: letter.errorCode,
          reason: { category: letter.errorCategory, message: letter.errorMessage },
        });
        return;
      }
      if (observation?.kind === 'held') {
        finish(item, {
          kind: 'held',
          code: observation.outcome.code,
          reason: { message: observation.outcome.message },
        });
        return;
      }
      // Deleted without a dead letter: the handler applied it.
      finish(item, {
        kind: 'applied',
        code: observation?.kind === 'applied' ? observation.outcome.code : 'APPLIED',
      });
    });
  };

  let waitNotes = 0;
  const drain = async (): Promise<void> => {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      let received = 0;
      followOutage();
      const pollOnce = async (action: ActionName): Promise<void> => {
        const records = await backend.receive(action, settings.actions[action].batchSize);
        await takeRedriven();
        if (records.length === 0) return;
        received += records.length;
        await invoke(action, records);
      };
      if (options.concurrentQueues === true) await Promise.all(enabledActions.map(pollOnce));
      else for (const action of enabledActions) await pollOnce(action);
      if (received > 0) continue;
      const { visible, inFlight } = await backend.pending();
      if (visible + inFlight === 0) return;
      if (visible === 0) {
        // Awaited on its own line: inside `note?.(…)` it would be skipped without an observer.
        const waited = await backend.waitForRedelivery();
        // The clock may jump hundreds of times (a day of backoff): the first few, then every 25th.
        const shown = waitNotes < 3 || waitNotes % 25 === 0;
        waitNotes += 1;
        if (shown) {
          observer.note?.(
            outageEnd === undefined ? waited : `${at()} ${counted(inFlight, 'message')} waiting`,
          );
        }
      }
    }
    throw new Error(`the queues did not drain within ${MAX_ROUNDS} rounds`);
  };

  const deliveryDefaults = {
    region: settings.campaignRegion,
    account: LOCAL_ACCOUNT,
    now: Date.now,
  };
  for (const [phaseIndex, phase] of scenario.phases.entries()) {
    const delivered = phase.events.map((input) => toDeliveredEvent(input, deliveryDefaults));
    const decisions = phase.events.map((input) => routeEvent(input, settings.actions));
    observer.phaseStarted?.({
      index: phaseIndex + 1,
      total: scenario.phases.length,
      file: phase.file,
      events: phase.events.length,
      routed: decisions.filter((d) => d.routed).length,
    });
    const ids = await (options.deliver ?? ((events) => backend.putEvents(events)))(delivered);
    const phaseItems = phase.events.map((input, i): Tracked => {
      const decision = decisions[i] ?? { routed: false, reason: 'not routed' };
      const eventId = ids[i] ?? delivered[i]?.id ?? '';
      const item: Tracked = {
        sequence: tracked.length,
        phase: phaseIndex + 1,
        input,
        decision,
        action: decision.routed
          ? decision.action
          : isActionName(input.detailType)
            ? input.detailType
            : undefined,
        correlationId: declaredCorrelationId(input.detail) ?? eventId,
        receives: 0,
      };
      tracked.push(item);
      byEventId.set(eventId, item);
      return item;
    });
    for (const item of phaseItems) {
      if (!item.decision.routed) {
        finish(item, {
          kind: 'unrouted',
          code: UNROUTED,
          reason: { message: `${item.decision.reason}; EventBridge drops it without a trace` },
        });
      }
    }
    await drain();
  }

  // Dead letters without a reason that were not seen live (an emulator's redrive).
  await takeRedriven();
  for (const letter of await backend.deadLetters()) {
    if (letter.reason) continue;
    const eventId = eventIdOf(letter.body);
    const item = eventId === undefined ? undefined : byEventId.get(eventId);
    if (item) {
      finish(item, {
        kind: 'redriven',
        code: REDRIVEN,
        reason: { message: "moved to the DLQ by the queue's redrive policy, without a reason" },
      });
    }
  }
  for (const item of tracked) {
    finish(item, {
      kind: 'lost',
      code: LOST,
      reason: {
        message:
          item.receives === 0
            ? 'routed to a queue but never received from it'
            : 'neither applied nor in a dead-letter queue',
      },
    });
  }

  return {
    fates: tracked.map((item) => item.fate).filter((f): f is MessageFate => f !== undefined),
    invocations,
    resultEvents,
    keyRotations,
    inProcessRetries,
    failedDeadLetterSends,
    requestsDuringOutage,
    breakerOpenings,
    probes,
    held,
  };
};
