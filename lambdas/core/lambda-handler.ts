import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { parseWith } from '../messages/parse';
import type { AnyAction } from './action';
import { createLimiter } from './concurrency';
import {
  type Disposition,
  loggableMessage,
  type Received,
  type SettleDependencies,
  settle,
} from './disposition';
import { entityOf, inEventOrder, oneEntityAtATime } from './entity-batching';
import {
  declaredCorrelationId,
  EnvelopeError,
  isEventBridgeEvent,
  unwrapBody,
  unwrapDecoded,
} from './envelope';
import type { EntityLedger } from './ledger/entity-ledger';
import { eventTime } from './ledger/event-time';
import { orderedEventOf } from './ledger/ordered-event';
import { BRAKE_RELEASED_ATTRIBUTE, HELD_BY_BRAKE, type MassDeleteBrake } from './mass-delete-brake';
import { type Outcome, RetryableFailure } from './outcome';
import type { CallOptions, PlatformCaller } from './platform-caller';
import type { ForwardedAttribute, HeldMessageSink, Rescheduler } from './ports';
import { nextDelaySeconds, type RetrySchedule, windowSpent } from './retry-schedule';

/**
 * The Lambda handler of one action, as a message meets it: an invocation (SQS batch,
 * EventBridge event, direct call) is routed one message at a time, and each message's outcome
 * is decided here (parse, brake, breaker, ledger, the action's request) and settled by
 * `disposition.ts`. `wiring.ts` builds it from the environment.
 */

export interface ProcessorDependencies extends SettleDependencies {
  /** Sends the action's requests (key, retries, classification); built with the same observer. */
  readonly platform: PlatformCaller;
  /**
   * Orders each entity's events (write actions). Without it, messages are applied as they come.
   */
  readonly ledger?: EntityLedger;
  /** The deployment's campaign region: part of a record's identity when a message names none. */
  readonly campaignRegion?: string;
  /**
   * The mass-delete brake of a destructive action and the queue it parks held messages in.
   * @default - no brake: destructive messages are applied however many arrive
   */
  readonly brake?: { readonly gate: MassDeleteBrake; readonly held: HeldMessageSink };
}

/** One inbound message, whatever carried it. */
export interface InboundMessage extends Received {
  /** The body already decoded (EventBridge target, direct invocation); skips JSON parsing. */
  readonly decoded?: unknown;
  /** SQS `SentTimestamp`: orders the event when it carries no `occurredAt`. */
  readonly sentTimestamp?: string;
  /** Epoch ms by which the platform calls for this message must be finished. */
  readonly deadline: number;
  /** The producer's SQS message attributes; a held message keeps them for its release. */
  readonly attributes?: Readonly<Record<string, ForwardedAttribute>>;
  /** Let through by an operator (`brake release`): the brake neither counts nor holds it. */
  readonly brakeReleased?: boolean;
}

export interface HandlerDependencies extends ProcessorDependencies {
  /** Receives after which SQS moves a message to the DLQ (the queue's redrive policy). */
  readonly maxReceiveCount: number;
  /**
   * Retry window and backoff of SQS messages. With `rescheduler`, a retryable failure waits its
   * backoff in the message's visibility and is dead-lettered once the window is spent.
   * @default - failed records come back after the queue's visibility timeout
   */
  readonly retrySchedule?: RetrySchedule;
  /** Sets a failed message's visibility (`ChangeMessageVisibility`). @default none */
  readonly rescheduler?: Rescheduler;
  /** The clock of the queue's timestamps (`SentTimestamp`), for the retry window. @default now */
  readonly queueClock?: () => number;
  /** Jitter of the backoff. @default Math.random */
  readonly random?: () => number;
  /** Publishes the breaker state after each invocation (PlatformUnavailable). @default none */
  readonly availability?: { publish(): void };
  /** Records of one batch processed at once. @default 10 */
  readonly recordConcurrency?: number;
  /** Time kept back from the Lambda deadline to report the batch. @default 2000 */
  readonly safetyMarginMs?: number;
}

/** What a direct invocation of a read action returns: the Lambda's answer to its caller. */
export interface DirectInvocationResult {
  readonly correlationId: string;
  readonly code: string;
  readonly result: unknown;
}

/** A direct invocation that could not be answered; the caller sees it as the function error. */
export class ActionFailedError extends Error {
  override readonly name = 'ActionFailedError';
  constructor(
    readonly category: string,
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

const isSqsEvent = (event: unknown): event is SQSEvent =>
  typeof event === 'object' &&
  event !== null &&
  Array.isArray((event as SQSEvent).Records) &&
  (event as SQSEvent).Records.every((r) => r?.eventSource === 'aws:sqs');

/**
 * Builds the Lambda handler of one action from its parts. Accepts an SQS batch (bodies are the
 * message or a whole EventBridge event), an EventBridge event (rule target = function), and for
 * the read actions a direct invocation whose payload is the message.
 */
export const createActionHandler = (action: AnyAction, deps: HandlerDependencies) => {
  const now = deps.now ?? Date.now;
  const limit = createLimiter(deps.recordConcurrency ?? 10);
  const margin = deps.safetyMarginMs ?? 2000;
  const isRead = action.kind === 'read';

  const deadlineOf = (context: Context): number =>
    now() + Math.max(0, context.getRemainingTimeInMillis() - margin);
  const schedule = deps.retrySchedule;
  const random = deps.random ?? Math.random;
  const queueNow = deps.queueClock ?? now;

  /** Set when the next retry of this record would start after its retry window. */
  const retryWindowSpent = (record: SQSRecord, receiveCount: number) => {
    const sentAt = Number(record.attributes.SentTimestamp);
    if (schedule === undefined || !Number.isFinite(sentAt)) return undefined;
    const at = queueNow();
    return windowSpent(schedule, receiveCount, sentAt, at)
      ? { triedForMs: at - sentAt, windowSeconds: schedule.windowSeconds }
      : undefined;
  };

  /** Keeps a failed record invisible for its backoff (at least what the platform asked). */
  const reschedule = async (
    record: SQSRecord,
    receiveCount: number,
    disposition: Disposition,
  ): Promise<void> => {
    if (schedule === undefined || deps.rescheduler === undefined) return;
    const delaySeconds = nextDelaySeconds(
      schedule,
      receiveCount,
      disposition.outcome.retryAfterMs,
      random,
    );
    try {
      await deps.rescheduler.reschedule(record.receiptHandle, delaySeconds);
      deps.logger.debug('message rescheduled', {
        messageId: record.messageId,
        receiveCount,
        delaySeconds,
      });
    } catch (error) {
      // Still failed, so still redelivered: after the queue's visibility timeout instead.
      deps.logger.warn('message not rescheduled; it returns after the queue visibility timeout', {
        messageId: record.messageId,
        error: error instanceof Error ? error.name : typeof error,
      });
    }
  };

  const handleSqs = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const deadline = deadlineOf(context);
    const processor = new BatchProcessor(EventType.SQS);
    const inTurn = oneEntityAtATime();
    // Inside the limiter: slots go in batch order, so a record only ever waits for an earlier one.
    const recordHandler = (record: SQSRecord): Promise<Disposition> =>
      limit(() =>
        inTurn(isRead ? undefined : entityOf(record.body), async () => {
          const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1') || 1;
          const windowSpent = retryWindowSpent(record, receiveCount);
          const disposition = await processMessage(
            action,
            {
              body: record.body,
              sourceMessageId: record.messageId,
              receiveCount,
              sentTimestamp: record.attributes.SentTimestamp,
              isLastReceive: receiveCount >= deps.maxReceiveCount || windowSpent !== undefined,
              ...(windowSpent === undefined ? {} : { windowSpent }),
              deadline,
              answersCaller: false,
              attributes: record.messageAttributes,
              brakeReleased: record.messageAttributes?.[BRAKE_RELEASED_ATTRIBUTE] !== undefined,
            },
            deps,
          );
          if (disposition.kind === 'retry') {
            await reschedule(record, receiveCount, disposition);
            // Throwing fails this record only: SQS redelivers it.
            throw new RetryableFailure(disposition.outcome);
          }
          return disposition;
        }),
      );
    // Every record that fails is reported, never the whole batch thrown: the ones that
    // succeeded stay deleted and the function's Errors alarm keeps meaning "crashed".
    // Records of one entity go in the order their events happened.
    return processPartialResponse(isRead ? event : inEventOrder(event), recordHandler, processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  };

  return async (event: unknown, context: Context): Promise<unknown> => {
    deps.platform.prefetch(action);
    try {
      if (isSqsEvent(event)) return await handleSqs(event, context);

      if (isEventBridgeEvent(event)) {
        const id = typeof event.id === 'string' ? event.id : `eventbridge-${now()}`;
        // Lambda's asynchronous retries keep no count the function can see, and after the last
        // one only an on-failure destination keeps the event (the rule target's DLQ takes only
        // what EventBridge could not hand over), in a shape redrive cannot replay. So every
        // attempt is the last: a failure the in-process retries cannot cure goes to the DLQ
        // with its reason now. The stack routes through SQS, which waits and retries longer.
        await processMessage(
          action,
          {
            body: JSON.stringify(event),
            decoded: event,
            sourceMessageId: id,
            receiveCount: 1,
            isLastReceive: true,
            deadline: deadlineOf(context),
            answersCaller: false,
          },
          deps,
        );
        return undefined;
      }

      if (!isRead) {
        throw new ActionFailedError(
          'permanent',
          'UNSUPPORTED_EVENT',
          `${action.name} accepts SQS batches and EventBridge events only`,
        );
      }
      return await invokeDirectly(event, context);
    } finally {
      deps.availability?.publish();
      deps.metrics.publishStoredMetrics();
    }
  };

  /** Direct invocation of a read: return the typed result, or throw for the caller to see. */
  async function invokeDirectly(
    payload: unknown,
    context: Context,
  ): Promise<DirectInvocationResult> {
    const disposition = await processMessage(
      action,
      {
        body: JSON.stringify(payload ?? null),
        decoded: payload ?? null,
        sourceMessageId: context.awsRequestId,
        receiveCount: 1,
        // The caller gets the answer now; nothing is redelivered, so nothing goes to a DLQ.
        isLastReceive: false,
        deadline: deadlineOf(context),
        answersCaller: true,
      },
      deps,
    );
    if (disposition.kind !== 'applied') {
      // The runtime logs what a function throws: no platform text that may quote record data.
      throw new ActionFailedError(
        disposition.kind === 'retry' ? 'retryable' : 'permanent',
        disposition.outcome.code,
        loggableMessage(disposition.outcome),
      );
    }
    return {
      correlationId: disposition.correlationId,
      code: disposition.outcome.code,
      result: disposition.outcome.result ?? null,
    };
  }
};

const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

const invalid = (code: string, message: string): Outcome => ({
  category: 'permanent',
  code,
  message,
  attempts: 0,
});

/**
 * Decides one message's outcome: parse at the edge, brake, order it (writes), call the
 * platform; then settles it (`settle`). Throws only when the dead-letter send itself failed.
 */
export const processMessage = async (
  action: AnyAction,
  inbound: InboundMessage,
  deps: ProcessorDependencies,
): Promise<Disposition> => {
  const now = deps.now ?? Date.now;
  const startedAt = now();
  let correlationId = inbound.sourceMessageId;
  let outcome: Outcome;
  let request: unknown;
  /** The ledger key of the entity (hashed ids), when the message was ordered. */
  let entity: string | undefined;
  let unordered = false;

  try {
    const unwrapped =
      inbound.decoded === undefined
        ? unwrapBody(action.name, inbound.body)
        : unwrapDecoded(action.name, inbound.decoded);
    correlationId =
      declaredCorrelationId(unwrapped.message) ?? unwrapped.eventId ?? inbound.sourceMessageId;
    const parsed = parseWith(action.schema, unwrapped.message);
    // Before the breaker's hold: a destructive message is counted on its first receive, whatever
    // happens to it afterwards; redeliveries are only checked (a brake tripped since holds them).
    const braked =
      parsed.success && deps.brake !== undefined && inbound.brakeReleased !== true
        ? action.destructive?.(parsed.message) === true
        : false;
    const verdict =
      braked && deps.brake !== undefined
        ? await deps.brake.gate.decide(inbound.receiveCount === 1 ? 'count' : 'check')
        : undefined;
    // Known to be down: wait without a ledger lease (a claim and a release per held message).
    const held =
      parsed.success && verdict?.kind !== 'hold' ? deps.platform.heldBack(action) : undefined;
    if (verdict?.kind === 'hold' && deps.brake !== undefined) {
      // A failed send throws: the record fails and comes back (and is held then), never lost.
      await deps.brake.held.hold({
        body: inbound.body,
        correlationId,
        sourceMessageId: inbound.sourceMessageId,
        reason: verdict.why,
        ...(inbound.attributes === undefined ? {} : { attributes: inbound.attributes }),
      });
      outcome = { category: 'success', code: HELD_BY_BRAKE, message: verdict.why, attempts: 0 };
    } else if (held !== undefined) {
      outcome = held;
    } else if (parsed.success) {
      const message = parsed.message;
      request = message;
      const call: CallOptions = {
        deadline: inbound.deadline,
        correlationId,
        redelivered: inbound.receiveCount > 1,
      };
      const ordering = deps.ledger === undefined ? undefined : action.ordering;
      const ordered =
        ordering === undefined
          ? undefined
          : orderedEventOf(
              action.name,
              ordering,
              message,
              eventTime(
                {
                  occurredAt: (message as { occurredAt?: string }).occurredAt,
                  eventBridgeTime: unwrapped.eventTime,
                  sqsSentTimestamp: inbound.sentTimestamp,
                },
                now(),
              ).ms,
              deps.campaignRegion ?? '',
            );
      if (ordering !== undefined && ordered !== undefined && deps.ledger !== undefined) {
        entity = ordered.location;
        outcome = await deps.ledger.apply(
          ordered.location,
          ordered.event,
          (decision) =>
            ordering.apply(message, decision, deps.platform, {
              ...call,
              redelivered: decision.ourEarlierAttempt,
            }),
          inbound.deadline,
        );
      } else {
        // A write the ledger cannot order (named by previewRecordId only) goes as it comes.
        unordered = ordering !== undefined;
        outcome = await action.execute(message, deps.platform, call);
      }
    } else {
      outcome = invalid('INVALID_MESSAGE', parsed.error);
    }
  } catch (error) {
    if (error instanceof EnvelopeError) {
      outcome = invalid(error.code, error.message);
    } else {
      // An unexpected fault (key source down, a bug): not the message's fault, so retry it.
      outcome = {
        category: 'retryable',
        code: 'UNEXPECTED_ERROR',
        message: describeError(error),
        attempts: 0,
      };
    }
  }

  return settle(
    { action: action.name, correlationId, outcome, request, entity, unordered, startedAt },
    inbound,
    deps,
  );
};
