import { randomBytes } from 'node:crypto';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { ACTION_NAMES, type ActionName } from '../../lambdas/actions';
import type { HeldMessage } from '../../lambdas/core/entry/ports';
import { counted } from '../../ops/counted';
import { type EventBridgeEvent, lambdaContext } from '../../testkit';
import type { Backend } from '../backends';
import type { FaultSettings, RunningSimulator } from '../simulator';
import type { Scenario } from './event-input';
import { FateBook, type MessageFate, REDRIVEN, type Tracked, UNROUTED } from './fate-book';
import { startPhase } from './phase-start';
import { type Handler, type HandlerWiring, handlersFor } from './run-handlers';
import type { LogSink } from './run-logger';
import type { RunSettings } from './run-settings';

// Where the run's messages ended is what its result and its report speak of.
export {
  type FateKind,
  LOST,
  type MessageFate,
  REDRIVEN,
  UNROUTED,
} from './fate-book';

/** Shown for a receive whose dead-letter send failed (the message is redelivered). */
export const DLQ_SEND_FAILED = 'DLQ_SEND_FAILED';

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

const MAX_ROUNDS = 100_000;
/** The AWS account the local run's functions and events claim. */
const LOCAL_ACCOUNT = '000000000000';

/**
 * Drives the real handlers over the backend's queues: phase by phase (one event file each),
 * puts the events on the bus, then polls every action queue in batches, invokes the action's
 * handler, deletes what it did not report as failed, and lets the visibility timeout bring the
 * rest back, until every queue is empty. Each message's fate is reported as soon as it is final.
 */
export const runPipeline = async (options: PipelineOptions): Promise<RunResult> => {
  const run = localRun(options);
  for (const [index, phase] of options.scenario.phases.entries()) {
    await deliverPhase(run, index, phase);
    await drain(run);
  }
  await closeFates(run);
  return { fates: run.book.fates(), ...run.counts, held: run.held };
};

/** One local run: its options, the fates it follows, what it counts, and the handlers it drives. */
interface LocalRun extends HandlerWiring {
  readonly outage: Outage;
  readonly handlers: ReadonlyMap<ActionName, Handler>;
  /** Notes the wait for a redelivery, sparsely. */
  readonly noteWait: (waited: string, inFlight: number) => void;
}

const localRun = (options: PipelineOptions): LocalRun => {
  const observer = options.observer ?? {};
  const outage = outageOf(options, observer);
  const run: Omit<LocalRun, 'handlers'> = {
    options,
    observer,
    book: new FateBook((fate) => observer.fate?.(fate)),
    counts: {
      invocations: 0,
      resultEvents: 0,
      keyRotations: 0,
      inProcessRetries: 0,
      failedDeadLetterSends: 0,
      requestsDuringOutage: 0,
      breakerOpenings: 0,
      probes: 0,
    },
    latest: { dispositions: new Map(), letters: new Map(), failedSends: new Set() },
    outage,
    held: [],
    enabledActions: ACTION_NAMES.filter((action) => options.settings.actions[action].enabled),
    noteWait: waitNotes(observer, outage),
  };
  return { ...run, handlers: handlersFor(run) };
};

/** The platform's outage in the queues' time: from the start of the run, `outageMs` long. */
interface Outage {
  /** When it ends (queue time); undefined: no outage. */
  readonly end: number | undefined;
  /** The platform is down now, as last followed. */
  readonly isDown: () => boolean;
  /** The queues' time since the run started, as `t+0h00m00s`. */
  readonly at: () => string;
  /** Gives the simulator the outage's faults while it lasts, the run's own after. */
  readonly follow: () => void;
}

const outageOf = (
  { backend, simulator, faults, outageMs }: PipelineOptions,
  observer: RunObserver,
): Outage => {
  const startedAt = backend.queueNow();
  const end = outageMs === undefined ? undefined : startedAt + outageMs;
  let down = false;
  const at = (): string => {
    const seconds = Math.round((backend.queueNow() - startedAt) / 1000);
    const h = Math.floor(seconds / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    return `t+${h}h${String(m).padStart(2, '0')}m${String(seconds % 60).padStart(2, '0')}s`;
  };
  return {
    end,
    isDown: () => down,
    at,
    follow: () => {
      if (end === undefined) return;
      const downNow = backend.queueNow() < end;
      if (downNow === down) return;
      down = downNow;
      simulator.setFaults(down ? OUTAGE_FAULTS : faults ? RUN_FAULTS : {});
      observer.note?.(
        down
          ? `${at()} outage: the platform answers every request with HTTP 503`
          : `${at()} the platform is back`,
      );
    },
  };
};

/** The clock may jump hundreds of times (a day of backoff): the first few waits, then every 25th. */
const waitNotes = (observer: RunObserver, outage: Outage) => {
  let waits = 0;
  return (waited: string, inFlight: number): void => {
    const shown = waits < 3 || waits % 25 === 0;
    waits += 1;
    if (shown) {
      observer.note?.(
        outage.end === undefined
          ? waited
          : `${outage.at()} ${counted(inFlight, 'message')} waiting`,
      );
    }
  };
};

/** Puts a phase's events on the bus and follows each; one no rule routes ends here. */
const deliverPhase = async (
  { options, observer, book }: LocalRun,
  phaseIndex: number,
  phase: Scenario['phases'][number],
): Promise<void> => {
  const { settings, backend, scenario } = options;
  const { delivered, followed } = startPhase(
    { settings, account: LOCAL_ACCOUNT, observer, phases: scenario.phases.length },
    phaseIndex,
    phase,
  );
  const ids = await (options.deliver ?? ((events) => backend.putEvents(events)))(delivered);
  const phaseItems = phase.events.map((input, i) => {
    const eventId = ids[i] ?? delivered[i]?.id ?? '';
    return book.track(followed(input, i, eventId), eventId);
  });
  for (const item of phaseItems) {
    if (!item.decision.routed) {
      book.finish(item, {
        kind: 'unrouted',
        code: UNROUTED,
        reason: { message: `${item.decision.reason}; EventBridge drops it without a trace` },
      });
    }
  }
};

/** Polls and invokes until every queue is empty, waiting out the backoff of what comes back. */
const drain = async (run: LocalRun): Promise<void> => {
  const { backend } = run.options;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    run.outage.follow();
    if ((await pollAll(run)) > 0) continue;
    const { visible, inFlight } = await backend.pending();
    if (visible + inFlight === 0) return;
    if (visible === 0) {
      // Awaited on its own line: inside `note?.(…)` it would be skipped without an observer.
      const waited = await backend.waitForRedelivery();
      run.noteWait(waited, inFlight);
    }
  }
  throw new Error(`the queues did not drain within ${MAX_ROUNDS} rounds`);
};

/** Polls every enabled queue once (all at once when they run concurrently): the records received. */
const pollAll = async (run: LocalRun): Promise<number> => {
  const { backend, settings } = run.options;
  const pollOnce = async (action: ActionName): Promise<number> => {
    const records = await backend.receive(action, settings.actions[action].batchSize);
    await takeRedriven(run);
    if (records.length > 0) await invoke(run, action, records);
    return records.length;
  };
  if (run.options.concurrentQueues === true) {
    const received = await Promise.all(run.enabledActions.map(pollOnce));
    return received.reduce((sum, n) => sum + n, 0);
  }
  let received = 0;
  for (const action of run.enabledActions) received += await pollOnce(action);
  return received;
};

/** Messages the queue's redrive policy moved to a DLQ: their fate, without a reason. */
const takeRedriven = async ({ options, book }: LocalRun): Promise<void> => {
  for (const moved of await options.backend.takeRedriven()) {
    const item = book.ofBody(moved.body);
    if (!item) continue;
    book.finish(item, {
      kind: 'redriven',
      code: REDRIVEN,
      reason: {
        message: `moved to the DLQ by the queue's redrive policy after ${counted(item.receives, 'receive')}, without a reason`,
      },
    });
  }
};

/**
 * One invocation of an action's handler with a batch: what it did not report as failed is
 * deleted, the rest comes back after the visibility timeout; each receive's end is reported.
 */
const invoke = async (run: LocalRun, action: ActionName, records: SQSRecord[]): Promise<void> => {
  const handler = run.handlers.get(action);
  if (!handler) throw new Error(`no handler for ${action}`);
  await countInvocation(run);
  const items = records.map((record) => {
    const item = run.book.received(action, record);
    item.receives = Number(record.attributes.ApproximateReceiveCount) || item.receives + 1;
    run.latest.letters.delete(record.messageId);
    run.latest.dispositions.delete(record.messageId);
    run.latest.failedSends.delete(record.messageId);
    return item;
  });
  const failed = await failedOf(run, action, handler, records);
  await run.options.backend.deleteMessages(
    action,
    records.filter((r) => !failed.has(r.messageId)),
  );
  records.forEach((record, i) => {
    const item = items[i];
    if (item) receiveEnded(run, action, record, item, failed.has(record.messageId));
  });
};

/** With faults, the API key is rotated at the invocation whose number is due. */
const countInvocation = async ({ options, observer, counts }: LocalRun): Promise<void> => {
  // Counted before the rotation awaits, so queues polled at once rotate it only once.
  const invocation = counts.invocations;
  counts.invocations += 1;
  if (options.faults && invocation === ROTATE_KEY_AFTER_INVOCATIONS) {
    const newKey = randomBytes(24).toString('base64url');
    await options.backend.rotateApiKey(newKey);
    options.simulator.setApiKey(newKey);
    counts.keyRotations += 1;
    observer.note?.(
      'fault: API key rotated in the secret; the platform now rejects the old key (401 → one refresh)',
    );
  }
};

/** The messages of the batch the invocation failed: those it reported, or all when it crashed. */
const failedOf = async (
  { options, observer }: LocalRun,
  action: ActionName,
  handler: Handler,
  records: SQSRecord[],
): Promise<Set<string>> => {
  const { settings } = options;
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
    return new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  } catch (error) {
    // A crashed invocation: Lambda returns the whole batch to the queue.
    observer.note?.(
      `${action} invocation failed (${error instanceof Error ? error.message : String(error)}); the batch is redelivered`,
    );
    return new Set(records.map((r) => r.messageId));
  }
};

/**
 * How one receive ended: failed, it comes back (a retry); else its message is dead-lettered with
 * the reason sent, held by the brake, or, deleted without a dead letter, applied.
 */
const receiveEnded = (
  { options, observer, book, latest }: LocalRun,
  action: ActionName,
  record: SQSRecord,
  item: Tracked,
  failed: boolean,
): void => {
  const observation = latest.dispositions.get(record.messageId);
  if (observation) item.correlationId = observation.correlationId;
  if (failed) {
    observer.retry?.({
      action,
      correlationId: item.correlationId,
      code: latest.failedSends.has(record.messageId)
        ? DLQ_SEND_FAILED
        : (observation?.outcome.code ?? 'BATCH_ITEM_FAILURE'),
      receive: item.receives,
      maxReceiveCount: options.settings.actions[action].maxReceiveCount,
    });
    return;
  }
  const letter = latest.letters.get(record.messageId);
  if (letter) {
    item.correlationId = letter.correlationId;
    book.finish(item, {
      kind: 'dead-lettered',
      code: letter.errorCode,
      reason: { category: letter.errorCategory, message: letter.errorMessage },
    });
    return;
  }
  if (observation?.kind === 'held') {
    book.finish(item, {
      kind: 'held',
      code: observation.outcome.code,
      reason: { message: observation.outcome.message },
    });
    return;
  }
  // Deleted without a dead letter: the handler applied it.
  book.finish(item, {
    kind: 'applied',
    code: observation?.kind === 'applied' ? observation.outcome.code : 'APPLIED',
  });
};

/**
 * After the last phase: dead letters without a reason that were not seen live (an emulator's
 * redrive) are redriven; every message still without a fate is lost.
 */
const closeFates = async (run: LocalRun): Promise<void> => {
  await takeRedriven(run);
  for (const letter of await run.options.backend.deadLetters()) {
    if (letter.reason) continue;
    const item = run.book.ofBody(letter.body);
    if (item) {
      run.book.finish(item, {
        kind: 'redriven',
        code: REDRIVEN,
        reason: { message: "moved to the DLQ by the queue's redrive policy, without a reason" },
      });
    }
  }
  run.book.loseTheRest();
};
