import { setTimeout as sleep } from 'node:timers/promises';
import { type ActionName, actionDefinition } from '../../lambdas/actions';
import { counted } from '../../ops/counted';
import type { DeployedDeadLetter, DeployedStackRun, LoggedDisposition } from '../backends';
import type { Scenario } from './event-input';
import { type Tracked as BookTracked, eventIdOf, type FateEnd, fateOf } from './fate-book';
import { startPhase } from './phase-start';
import {
  LOST,
  type MessageFate,
  REDRIVEN,
  type RunObserver,
  type RunResult,
  UNROUTED,
} from './pipeline';
import { summariseResult } from './run-handlers';
import type { RunSettings } from './run-settings';

export interface DeployedPipelineOptions {
  readonly scenario: Scenario;
  readonly settings: RunSettings;
  readonly stack: Pick<DeployedStackRun, 'putEvents' | 'observe' | 'flushLogs'>;
  /** The account the events claim until EventBridge stamps its own. */
  readonly account: string;
  readonly observer?: RunObserver;
  /**
   * How long a phase may take before its unfinished messages are reported lost. Bounds a
   * broken run only. @default 120000
   */
  readonly phaseTimeoutMs?: number;
  /** Between two looks at the deployed stack. @default 500 */
  readonly pollMs?: number;
}

interface Tracked extends BookTracked {
  readonly eventId: string;
  /** Logged as done by its function (a read waits for its result event too). */
  appliedAs?: LoggedDisposition;
  /** Logged as dead-lettered by its function. */
  deadLetteredAs?: LoggedDisposition;
  /** Its dead letter, found in the DLQ. */
  letter?: DeployedDeadLetter;
}

/**
 * `npm start -- --deployed`: phase by phase (one event file each), puts the events on the
 * deployed bus and watches the deployed stack until each message's fate is known, from what it
 * can observe (`DeployedStackRun`): the function's log line for each receive (applied, already
 * in place, skipped, retried, dead-lettered), the dead letter in the DLQ with its reason, a
 * read's result event. An event is UNROUTED when the local routing model says no rule matches
 * and, once the phase's other messages are done and the source queues are empty, no function
 * received it and no DLQ holds it. The next phase starts when this one is done, as in the
 * local run. Returns the same result as `runPipeline`; what it cannot observe is undefined.
 */
export const runDeployedPipeline = async (options: DeployedPipelineOptions): Promise<RunResult> => {
  const { scenario, settings, stack } = options;
  const observer = options.observer ?? {};
  const phaseTimeoutMs = options.phaseTimeoutMs ?? 120_000;
  const pollMs = options.pollMs ?? 500;

  const tracked: Tracked[] = [];
  const byMessageId = new Map<string, Tracked>();
  const byEventId = new Map<string, Tracked>();
  /** Receives already reported (`messageId:receiveCount:kind`). */
  const reported = new Set<string>();
  const results = new Map<string, string>();
  let resultEvents = 0;

  const finish = (item: Tracked, fate: FateEnd) => {
    if (item.fate) return;
    item.fate = fateOf(item, fate, results.get(item.correlationId));
    observer.fate?.(item.fate);
  };

  /** The item a function's log line is about: by SQS message id once known, else correlation id. */
  const itemOf = (line: LoggedDisposition): Tracked | undefined => {
    const known = byMessageId.get(line.messageId);
    if (known) return known;
    const item = tracked.find(
      (candidate) =>
        candidate.fate === undefined &&
        candidate.correlationId === line.correlationId &&
        ![...byMessageId.values()].includes(candidate),
    );
    if (item) byMessageId.set(line.messageId, item);
    return item;
  };

  const isRead = (action: ActionName | undefined): boolean =>
    action !== undefined && actionDefinition(action).kind === 'read';

  /** Looks at the deployed stack once and settles what it shows. */
  const look = async (): Promise<number> => {
    const seen = await stack.observe();
    resultEvents = seen.results.length;
    for (const event of seen.results) {
      const detail = event.detail as { correlationId?: unknown; result?: unknown };
      const summary = summariseResult(detail.result);
      if (typeof detail.correlationId === 'string' && summary !== undefined) {
        results.set(detail.correlationId, summary);
      }
    }
    for (const line of seen.dispositions) {
      const key = `${line.messageId}:${line.receiveCount}:${line.kind}`;
      const item = itemOf(line);
      if (!item || item.fate) continue;
      item.receives = Math.max(item.receives, line.receiveCount);
      if (line.kind === 'retry') {
        if (!reported.has(key)) {
          observer.retry?.({
            action: line.action,
            correlationId: item.correlationId,
            code: line.code,
            receive: line.receiveCount,
            maxReceiveCount: settings.actions[line.action].maxReceiveCount,
          });
        }
      } else if (line.kind === 'dead-lettered') {
        item.deadLetteredAs = line;
      } else if (line.kind === 'held') {
        finish(item, {
          kind: 'held',
          code: line.code,
          reason: { message: line.reason ?? 'held by the mass-delete brake' },
        });
      } else {
        item.appliedAs = line;
      }
      reported.add(key);
    }
    for (const letter of seen.deadLetters) {
      const eventId = eventIdOf(letter.body);
      const item =
        (eventId === undefined ? undefined : byEventId.get(eventId)) ??
        (letter.reason === undefined ? undefined : byMessageId.get(letter.reason.sourceMessageId));
      if (!item || item.fate) continue;
      if (letter.reason === undefined) {
        finish(item, {
          kind: 'redriven',
          code: REDRIVEN,
          reason: { message: "moved to the DLQ by the queue's redrive policy, without a reason" },
        });
      } else {
        item.letter = letter;
      }
    }
    for (const item of tracked) {
      // A read is done when its result event is on the bus too.
      const done = item.appliedAs;
      if (done && (!isRead(item.action) || results.has(item.correlationId))) {
        finish(item, { kind: 'applied', code: done.code });
      }
    }
    // A dead letter is final with its function's log line (it says on which receive); the
    // DLQ can show the letter before the log group shows the line.
    for (const item of tracked) {
      if (item.letter !== undefined && item.deadLetteredAs !== undefined) settleLetter(item);
    }
    return seen.queued;
  };

  const settleLetter = (item: Tracked): void => {
    const reason = item.letter?.reason;
    if (reason === undefined) return;
    finish(item, {
      kind: 'dead-lettered',
      code: reason.errorCode,
      reason: { category: reason.errorCategory, message: reason.errorMessage },
    });
  };

  for (const [phaseIndex, phase] of scenario.phases.entries()) {
    const { delivered, followed } = startPhase(
      { settings, account: options.account, observer, phases: scenario.phases.length },
      phaseIndex,
      phase,
    );
    // Every event goes to the bus, the ones no rule should match too: the deployed rules decide.
    const ids = await stack.putEvents(delivered);
    const items = phase.events.map((input, i): Tracked => {
      const eventId = ids[i] ?? '';
      const item: Tracked = {
        sequence: tracked.length,
        ...followed(input, i, eventId),
        eventId,
        receives: 0,
      };
      tracked.push(item);
      byEventId.set(eventId, item);
      return item;
    });
    const deadline = Date.now() + phaseTimeoutMs;
    let idleLooks = 0;
    for (;;) {
      const queued = await look();
      const waiting = items.filter((item) => item.decision.routed && item.fate === undefined);
      if (waiting.length === 0 && queued === 0) break;
      // Nothing left in the queues, yet a function's line is missing: MiniStack holds it until
      // that function's next invocation (see DeployedStackRun), so give it one.
      idleLooks = queued === 0 ? idleLooks + 1 : 0;
      if (idleLooks % 4 === 3) {
        await stack.flushLogs(
          waiting.flatMap((item) => (item.action === undefined ? [] : [item.action])),
        );
      }
      if (Date.now() > deadline) {
        observer.note?.(
          `${counted(waiting.length, 'message')} of this phase had no observed fate after ${phaseTimeoutMs / 1000} s`,
        );
        break;
      }
      await sleep(pollMs);
    }
    for (const item of items) {
      if (item.fate) continue;
      if (item.letter !== undefined) {
        settleLetter(item);
        continue;
      }
      if (item.appliedAs !== undefined) {
        finish(item, {
          kind: 'applied',
          code: item.appliedAs.code,
          reason: { message: 'its result event was not seen on the bus' },
        });
        continue;
      }
      if (!item.decision.routed && item.receives === 0) {
        finish(item, {
          kind: 'unrouted',
          code: UNROUTED,
          reason: {
            message: `${item.decision.reason}; no deployed function received it and no DLQ holds it`,
          },
        });
        continue;
      }
      const logged = item.deadLetteredAs;
      finish(item, {
        kind: 'lost',
        code: LOST,
        reason: {
          message:
            logged !== undefined
              ? `its function logged it dead-lettered (${logged.code}), but its DLQ does not hold it`
              : item.receives === 0
                ? 'no deployed function logged a receive of it and no DLQ holds it (had its queue deleted it, the outcome was not observable)'
                : `received ${counted(item.receives, 'time')}, but neither applied nor in a DLQ`,
        },
      });
    }
  }

  return {
    fates: tracked.map((item) => item.fate).filter((f): f is MessageFate => f !== undefined),
    invocations: 0,
    resultEvents,
    keyRotations: 0,
    inProcessRetries: undefined,
    failedDeadLetterSends: 0,
    requestsDuringOutage: 0,
    breakerOpenings: 0,
    probes: 0,
    held: [],
  };
};
