import { type ActionName, actionDefinition } from '../../lambdas/actions';
import { createActionHandler } from '../../lambdas/core/entry/invocation-entry';
import type {
  DeadLetterReason,
  DeadLetterSink,
  HeldMessage,
  ResultEvent,
  ResultPublisher,
} from '../../lambdas/core/entry/ports';
import { EntityLedger } from '../../lambdas/core/ledger/entity-ledger';
import type { Disposition } from '../../lambdas/core/pipeline/disposition';
import { PlatformCaller } from '../../lambdas/core/platform/platform-caller';
import type { PlatformSettings } from '../../lambdas/core/platform/platform-settings';
import { DEFAULT_BREAKER_SETTINGS } from '../../lambdas/core/resilience/circuit-breaker';
import { InMemoryBrakeStore } from '../../lambdas/core/resilience/in-memory-brake-store';
import { InMemoryBreakerStore } from '../../lambdas/core/resilience/in-memory-breaker-store';
import { MassDeleteBrake } from '../../lambdas/core/resilience/mass-delete-brake';
import { guardFor } from '../../lambdas/core/resilience/platform-guard';
import { orderedWith } from '../../lambdas/entities';
import { DELETE_BRAKE_DEFAULTS } from '../../lib/config';
import { counted } from '../../ops/counted';
import { seededRandom } from '../simulator/faults';
import type { FateBook } from './fate-book';
import type { PipelineOptions, RunObserver } from './pipeline';
import { createRunMetrics, RunLogger } from './run-logger';
import { runPlatformOf } from './run-settings';

/**
 * The handlers of a local run, wired as a deployment wires them, with the run's observers on
 * every port: what they dead-letter, publish, count and hold is what the run reports.
 */

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

/** What a run counts, as its result reports it. */
export interface RunCounts {
  invocations: number;
  resultEvents: number;
  keyRotations: number;
  inProcessRetries: number;
  failedDeadLetterSends: number;
  requestsDuringOutage: number;
  breakerOpenings: number;
  probes: number;
}

/** How each message's latest receive ended, as the handler and its sinks told, by SQS message id. */
export interface LatestReceive {
  readonly dispositions: Map<string, Disposition>;
  readonly letters: Map<string, DeadLetterReason>;
  /** Messages whose dead-letter send failed. */
  readonly failedSends: Set<string>;
}

export type Handler = ReturnType<typeof createActionHandler>;

/** What a local run's handlers are built from, and report into. */
export interface HandlerWiring {
  readonly options: PipelineOptions;
  readonly observer: RunObserver;
  readonly book: FateBook;
  readonly counts: RunCounts;
  readonly latest: LatestReceive;
  readonly outage: { readonly isDown: () => boolean; readonly at: () => string };
  /** Messages the mass-delete brakes parked (the held queues, in memory). */
  readonly held: HeldMessage[];
  readonly enabledActions: readonly ActionName[];
}

/**
 * The handler of each enabled action, wired as a deployment wires them (one ledger, one breaker
 * store, one brake count per destructive action), with the run's observers on every port.
 */
export const handlersFor = (run: HandlerWiring): Map<ActionName, Handler> => {
  const { settings, backend, simulator, logSink } = run.options;
  const platform: PlatformSettings = { ...runPlatformOf(settings), baseUrl: simulator.baseUrl };
  const deadLetterSink = deadLetterSinks(run);
  // The breakers of one deployment share their state (one table), as here one store does.
  const breakerStore = new InMemoryBreakerStore();
  const breakerEvents = breakerNotes(run);
  const brakeFor = brakes(run);
  const backoffRandom = seededRandom(1);
  // One ledger for all write actions, as the deployment's one table.
  const ledger = new EntityLedger({ store: backend.ledger });
  return new Map(
    run.enabledActions.map((action) => {
      const apiKey = backend.apiKeySource(action);
      const handler = createActionHandler(actionDefinition(action), {
        platform: new PlatformCaller(
          platform,
          apiKey,
          {},
          {
            observer: {
              attempt: (attempt) => {
                if (attempt.attempt > 1) run.counts.inProcessRetries += 1;
                if (run.outage.isDown()) run.counts.requestsDuringOutage += 1;
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
        results: resultPublisher(run, backend.resultPublisher(action)),
        logger: new RunLogger({ action, sink: logSink }),
        metrics: createRunMetrics(action, logSink),
        maxReceiveCount: settings.actions[action].maxReceiveCount,
        observer: { disposition: (d) => run.latest.dispositions.set(d.messageId, d) },
        ...brakeFor(action),
      });
      return [action, handler] as const;
    }),
  );
};

/** Records what the handlers dead-lettered; with faults, fails one send of the run, which is retried. */
const deadLetterSinks = ({ options, observer, book, counts, latest }: HandlerWiring) => {
  let faultPending = options.faults;
  return (action: ActionName, inner: DeadLetterSink): DeadLetterSink => ({
    send: async (body, reason) => {
      const item = book.ofMessage(reason.sourceMessageId);
      const receivesLeft =
        item !== undefined && item.receives < options.settings.actions[action].maxReceiveCount;
      if (faultPending && receivesLeft) {
        faultPending = false;
        counts.failedDeadLetterSends += 1;
        observer.note?.(
          `fault: the ${action} DLQ send for ${reason.correlationId} fails once; the message is redelivered, not lost`,
        );
        latest.failedSends.add(reason.sourceMessageId);
        throw new Error(`SendMessage to the ${action} DLQ failed (simulated)`);
      }
      try {
        await inner.send(body, reason);
      } catch (error) {
        latest.failedSends.add(reason.sourceMessageId);
        throw error;
      }
      latest.letters.set(reason.sourceMessageId, reason);
    },
  });
};

/** Counts the results published, and keeps a line about each for its message's fate. */
const resultPublisher = (
  { book, counts }: HandlerWiring,
  inner: ResultPublisher,
): ResultPublisher => ({
  publish: async (event: ResultEvent) => {
    await inner.publish(event);
    counts.resultEvents += 1;
    const summary = summariseResult(event.result);
    if (summary !== undefined) book.noteResult(event.correlationId, summary);
  },
});

/** Counts the breakers' openings and probes, and notes their changes. */
const breakerNotes = ({ observer, counts, outage }: HandlerWiring) => {
  const transitions = new Map<string, number>();
  return {
    changed: (service: string, state: 'open' | 'closed' | 'probe') => {
      if (state === 'open') counts.breakerOpenings += 1;
      if (state === 'probe') counts.probes += 1;
      // A long outage probes hundreds of times: the first cycles, every 60th, and the close.
      const seen = (transitions.get(service) ?? 0) + 1;
      transitions.set(service, seen);
      if (state !== 'closed' && seen > 4 && seen % 120 >= 2) return;
      observer.note?.(
        state === 'open'
          ? `${outage.at()} ${service} circuit breaker OPEN: messages wait in their queues, no requests for ${DEFAULT_BREAKER_SETTINGS.coolDownMs / 1000} s`
          : state === 'probe'
            ? `${outage.at()} ${service} circuit breaker half-open: one probe request`
            : `${outage.at()} ${service} circuit breaker CLOSED: the backlog drains`,
      );
    },
  };
};

/**
 * The mass-delete brake of a destructive action: one count per action for all its functions, as
 * the ledger table's brake items are; the deployment's default limit, counted in the queues' time.
 */
const brakes = ({ options, held }: HandlerWiring) => {
  const brakeStore = new InMemoryBrakeStore();
  return (action: ActionName) =>
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
              { now: () => options.backend.queueNow() },
            ),
            held: {
              hold: async (message: HeldMessage) => {
                held.push(message);
              },
            },
          },
        };
};
