import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { parseWith } from '../messages/parse';
import type { AnyAction } from './action';
import type { Disposition } from './disposition';
import { declaredCorrelationId, EnvelopeError, unwrapBody, unwrapDecoded } from './envelope';
import type { EntityLedger } from './ledger/entity-ledger';
import { eventTime } from './ledger/event-time';
import { orderedEventOf } from './ledger/ordered-event';
import { HELD_BY_BRAKE, type MassDeleteBrake } from './mass-delete-brake';
import type { Observer } from './observer';
import type { Outcome } from './outcome';
import type { CallOptions, PlatformCaller } from './platform-caller';
import type { DeadLetterSink, ForwardedAttribute, HeldMessageSink, ResultPublisher } from './ports';
import { describeDuration } from './retry-schedule';

/** Everything one message needs besides its own content. Built once per cold start. */
export interface ProcessorDependencies {
  /** Sends the action's requests (key, retries, classification); built with the same observer. */
  readonly platform: PlatformCaller;
  readonly deadLetters: DeadLetterSink;
  /** Required for the read actions (search, query-existence) when triggered by SQS or EventBridge. */
  readonly results?: ResultPublisher;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /**
   * Orders each entity's events (write actions). Without it, messages are applied as they come.
   */
  readonly ledger?: EntityLedger;
  /** The deployment's campaign region: part of a record's identity when a message names none. */
  readonly campaignRegion?: string;
  readonly now?: () => number;
  /** Told how each receive of a message ended (the local run's report); it cannot change it. */
  readonly observer?: Observer;
  /**
   * The mass-delete brake of a destructive action and the queue it parks held messages in.
   * @default - no brake: destructive messages are applied however many arrive
   */
  readonly brake?: { readonly gate: MassDeleteBrake; readonly held: HeldMessageSink };
}

/** One inbound message, whatever carried it. */
export interface InboundMessage {
  /** The original body as received; sent unchanged to the dead-letter queue. */
  readonly body: string;
  /** The body already decoded (EventBridge target, direct invocation); skips JSON parsing. */
  readonly decoded?: unknown;
  /** SQS message id or EventBridge event id. */
  readonly sourceMessageId: string;
  /** 1 for the first delivery. */
  readonly receiveCount: number;
  /** SQS `SentTimestamp`: orders the event when it carries no `occurredAt`. */
  readonly sentTimestamp?: string;
  /** No redelivery will follow: a retryable failure goes to the DLQ now, with its reason. */
  readonly isLastReceive: boolean;
  /**
   * Set when this is the last receive because the retry window is spent: a retryable failure
   * is dead-lettered as `RETRY_WINDOW_SPENT`, saying how long the message was tried.
   */
  readonly windowSpent?: { readonly triedForMs: number; readonly windowSeconds: number };
  /** Epoch ms by which the platform calls for this message must be finished. */
  readonly deadline: number;
  /**
   * A direct invocation: the caller gets the result or the reason, so nothing is published on
   * the result bus and nothing is dead-lettered.
   */
  readonly answersCaller: boolean;
  /** The producer's SQS message attributes; a held message keeps them for its release. */
  readonly attributes?: Readonly<Record<string, ForwardedAttribute>>;
  /** Let through by an operator (`brake release`): the brake neither counts nor holds it. */
  readonly brakeReleased?: boolean;
}

/** A retryable failure whose retry window is spent (dead-letter reason). */
export const RETRY_WINDOW_SPENT = 'RETRY_WINDOW_SPENT';

/** The result of a read could not be put on the result bus (the platform call succeeded). */
export const RESULT_PUBLISH_FAILED = 'RESULT_PUBLISH_FAILED';

/** Codes whose message this integration wrote (ordering and honest idempotency). */
const OWN_CODES: ReadonlySet<string> = new Set([
  HELD_BY_BRAKE,
  'RECORD_NOT_YET_THERE',
  'TRANSFER_TARGET_OCCUPIED',
  'USER_EXISTS_NOT_OURS',
  'ENTITY_BUSY',
  'WAITING_FOR_CREATE',
  'WAITING_FOR_MOVE',
  'RECREATED',
]);

/** Messages counted, never applied: stale ones and exact duplicates. */
const SKIP_METRICS: ReadonlyMap<string, string> = new Map([
  ['STALE_SKIPPED', 'StaleSkipped'],
  ['DUPLICATE', 'Duplicate'],
]);

/** Reasons authored here (validation, idempotency, publishing) never quote values; platform texts might. */
const ownReason = (outcome: Outcome): boolean =>
  outcome.attempts === 0 ||
  OWN_CODES.has(outcome.code) ||
  outcome.code.startsWith('ALREADY_') ||
  outcome.code === RESULT_PUBLISH_FAILED;

/**
 * An outcome's message where it may be logged: ours as it is; the platform's error text (which
 * may quote record data) replaced by its code. The dead letter keeps the full text.
 */
export const loggableMessage = (outcome: Outcome): string =>
  ownReason(outcome)
    ? outcome.message
    : `the platform answered ${outcome.code}; its error text stays out of logs (it may quote record data)`;

const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

const invalid = (code: string, message: string): Outcome => ({
  category: 'permanent',
  code,
  message,
  attempts: 0,
});

/**
 * Turns one message into a disposition: parse at the edge, order it (writes), call the
 * platform, classify. Permanent failures (and retryable ones on the last receive) go to the DLQ
 * with their reason, or back to a direct caller; other retryable failures come back as `retry`
 * for the caller to fail the record. Throws only when the dead-letter send itself failed.
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

  if (outcome.category === 'success' && !inbound.answersCaller && outcome.result !== undefined) {
    try {
      if (!deps.results) throw new Error('no result publisher configured');
      await deps.results.publish({
        action: action.name,
        correlationId,
        request,
        result: outcome.result,
      });
    } catch (error) {
      // The answer must not be lost, nor the message leave without a reason: treat it like any
      // retryable failure (redelivered; on the last receive dead-lettered saying why).
      outcome = {
        category: 'retryable',
        code: RESULT_PUBLISH_FAILED,
        message: `the result event could not be published: ${describeError(error)}`,
        ...(outcome.httpStatus === undefined ? {} : { httpStatus: outcome.httpStatus }),
        attempts: outcome.attempts,
      };
    }
  }

  const logFields = {
    action: action.name,
    // Platform error texts may quote record data, so only reasons we wrote ourselves are logged;
    // the full reason travels with the dead letter.
    reason: ownReason(outcome) ? outcome.message : undefined,
    correlationId,
    messageId: inbound.sourceMessageId,
    entity,
    receiveCount: inbound.receiveCount,
    category: outcome.category,
    code: outcome.code,
    attempts: outcome.attempts,
    httpStatus: outcome.httpStatus,
    latencyMs: now() - startedAt,
  };

  const dispose = (kind: Disposition['kind'], settled: Outcome): Disposition => {
    const disposition: Disposition = {
      kind,
      messageId: inbound.sourceMessageId,
      correlationId,
      receiveCount: inbound.receiveCount,
      outcome: settled,
    };
    try {
      deps.observer?.disposition?.(disposition);
    } catch {
      // Observing only: a failing report must not change what happens to the message.
    }
    return disposition;
  };

  if (unordered) deps.metrics.addMetric('Unordered', MetricUnit.Count, 1);
  if (outcome.code === HELD_BY_BRAKE) {
    deps.metrics.addMetric('DeletesHeld', MetricUnit.Count, 1);
    deps.logger.warn('message held by the mass-delete brake', logFields);
    return dispose('held', outcome);
  }
  if (outcome.category === 'success') {
    const skipped = SKIP_METRICS.get(outcome.code);
    deps.metrics.addMetric(
      skipped ?? (outcome.code.startsWith('ALREADY_') ? 'AlreadyApplied' : 'Succeeded'),
      MetricUnit.Count,
      1,
    );
    if (skipped !== undefined) {
      deps.logger.info('message skipped: the platform already holds newer state', logFields);
    } else if (outcome.code.startsWith('ALREADY_')) {
      deps.logger.warn('desired state already in place', logFields);
    } else {
      deps.logger.info('message applied', logFields);
    }
    return dispose('applied', outcome);
  }

  if (outcome.category === 'retryable' && !inbound.isLastReceive) {
    deps.metrics.addMetric('Retried', MetricUnit.Count, 1);
    deps.logger.warn('retryable failure, message will be redelivered', logFields);
    return dispose('retry', outcome);
  }

  if (inbound.answersCaller) {
    deps.logger.warn('message rejected to the caller', logFields);
    return dispose('rejected', outcome);
  }

  // Permanent, or retryable on its last receive: dead-letter with the reason. A failed send
  // throws, so SQS redelivers the record instead of it being lost.
  const spent = outcome.category === 'retryable' ? inbound.windowSpent : undefined;
  const errorMessage =
    spent !== undefined
      ? `retried for ${describeDuration(spent.triedForMs)} over ${inbound.receiveCount} receives (retry window ${describeDuration(spent.windowSeconds * 1000)}); last failure ${outcome.code}: ${outcome.message}`
      : outcome.category === 'retryable'
        ? `gave up after receive ${inbound.receiveCount}: ${outcome.message}`
        : outcome.message;
  const errorCode = spent === undefined ? outcome.code : RETRY_WINDOW_SPENT;
  try {
    await deps.deadLetters.send(inbound.body, {
      action: action.name,
      errorCategory: outcome.category,
      errorCode,
      errorMessage,
      sourceMessageId: inbound.sourceMessageId,
      correlationId,
    });
  } catch (error) {
    // The caller reports the record as failed so it is not lost; say why it failed here, as
    // no other line of this record will.
    deps.logger.error('message not dead-lettered', {
      ...logFields,
      deadLetterError: error instanceof Error ? error.name : typeof error,
    });
    dispose('retry', outcome);
    throw error;
  }
  deps.metrics.addMetric('DeadLettered', MetricUnit.Count, 1);
  deps.logger.error('message dead-lettered', {
    ...logFields,
    code: errorCode,
    ...(spent === undefined ? {} : { lastFailure: outcome.code }),
  });
  return dispose('dead-lettered', { ...outcome, code: errorCode, message: errorMessage });
};
