import { processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { SyncError } from '../errors';
import type { AnyAction } from '../pipeline/action';
import { type Disposition, loggableMessage } from '../pipeline/disposition';
import { ledgerOf, type ProcessorDependencies, processMessage } from '../pipeline/message-pipeline';
import { RetryableFailure } from '../pipeline/outcome';
import { BRAKE_RELEASED_ATTRIBUTE } from '../resilience/mass-delete-brake';
import { createLimiter } from './concurrency';
import { inEventOrder, oneEntityAtATime } from './entity-batching';
import { type EventBridgeShape, isEventBridgeEvent } from './envelope';
import { type RetryPolicy, RetryWindowProcessor } from './retry-window-processor';

/**
 * The Lambda entry point of one action, as an invocation meets it: an SQS batch (each record's
 * failure reported apart: Powertools' partial batch response, with the retry window and each
 * failed record's visibility in `retry-window-processor.ts`), an EventBridge event (rule target =
 * function), or a direct call of a read. It routes one message at a time to
 * `message-pipeline.ts`. `wiring.ts` builds it from the environment.
 */

export interface HandlerDependencies extends ProcessorDependencies, Omit<RetryPolicy, 'logger'> {
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
export class ActionFailedError extends SyncError<string> {
  override readonly name = 'ActionFailedError';
  constructor(
    readonly category: 'retryable' | 'permanent',
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
  // A write without its ledger fails here, at cold start, not on each message.
  if (!isRead) ledgerOf(action, deps);

  const deadlineOf = (context: Context): number =>
    now() + Math.max(0, context.getRemainingTimeInMillis() - margin);

  const handleSqs = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const deadline = deadlineOf(context);
    const processor = new RetryWindowProcessor(deps, now);
    const inTurn = oneEntityAtATime();
    const campaignRegion = deps.campaignRegion ?? deps.platform.campaignRegion;
    // Records of one entity go in the order their events happened; each body is read once here.
    const batch = isRead ? undefined : inEventOrder(event, campaignRegion);
    // Inside the limiter: slots go in batch order, so a record only ever waits for an earlier one.
    const recordHandler = (record: SQSRecord): Promise<Disposition> => {
      const reading = batch?.readings.get(record);
      return limit(() =>
        inTurn(reading?.entity, async () => {
          const disposition = await processMessage(
            action,
            {
              body: record.body,
              ...(reading?.decoded === undefined ? {} : { decoded: reading.decoded }),
              sourceMessageId: record.messageId,
              ...processor.receiveOf(record),
              sentTimestamp: record.attributes.SentTimestamp,
              deadline,
              answersCaller: false,
              source: 'queue',
              attributes: record.messageAttributes,
              brakeReleased: record.messageAttributes?.[BRAKE_RELEASED_ATTRIBUTE] !== undefined,
            },
            deps,
          );
          // Throwing fails this record only: the processor reschedules it, SQS redelivers it.
          if (disposition.kind === 'retry') throw new RetryableFailure(disposition.outcome);
          return disposition;
        }),
      );
    };
    // Every record that fails is reported, never the whole batch thrown: the ones that
    // succeeded stay deleted and the function's Errors alarm keeps meaning "crashed".
    return processPartialResponse(batch?.event ?? event, recordHandler, processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  };

  /**
   * An EventBridge event (rule target = function). Lambda's asynchronous retries keep no count
   * the function can see, and after the last one only an on-failure destination keeps the event
   * (the rule target's DLQ takes only what EventBridge could not hand over), in a shape redrive
   * cannot replay. So every attempt is the last: a failure the in-process retries cannot cure
   * goes to the DLQ with its reason now. The stack routes through SQS, which waits and retries
   * longer.
   */
  const handleEventBridge = async (
    event: EventBridgeShape,
    context: Context,
  ): Promise<undefined> => {
    const id = typeof event.id === 'string' ? event.id : `eventbridge-${now()}`;
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
        source: 'queue',
      },
      deps,
    );
    return undefined;
  };

  return async (event: unknown, context: Context): Promise<unknown> => {
    deps.platform.prefetch(action);
    try {
      if (isSqsEvent(event)) return await handleSqs(event, context);
      if (isEventBridgeEvent(event)) return await handleEventBridge(event, context);
      if (isRead) return await invokeDirectly(event, context);
      throw new ActionFailedError(
        'permanent',
        'UNSUPPORTED_EVENT',
        `${action.name} accepts SQS batches and EventBridge events only`,
      );
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
