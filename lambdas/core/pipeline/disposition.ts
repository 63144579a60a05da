import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DeadLetterSink, ResultPublisher } from '../entry/ports';
import { describeDuration } from '../entry/retry-schedule';
import type { Observer } from '../observability/observer';
import { HELD_BY_BRAKE } from '../resilience/mass-delete-brake';
import {
  isAlreadyCode,
  isOwnCode,
  isSkip,
  type Outcome,
  type OwnCode,
  successMetric,
} from './outcome';

/**
 * How one receive of one message ended, the one result type of the harness:
 * - `applied`: done (applied, in place already, or knowingly skipped as stale or duplicate);
 * - `retry`: reported as failed for redelivery (also when the dead-letter send failed);
 * - `dead-lettered`: in the DLQ with its reason;
 * - `rejected`: a permanent failure answered to a direct caller instead of dead-lettered;
 * - `held`: parked by the mass-delete brake until an operator releases or discards it.
 */
export interface Disposition {
  readonly kind: 'applied' | 'retry' | 'dead-lettered' | 'rejected' | 'held';
  /** SQS message id, EventBridge event id, or the request id of a direct invocation. */
  readonly messageId: string;
  readonly correlationId: string;
  /** 1 for the first delivery. */
  readonly receiveCount: number;
  readonly outcome: Outcome;
}

/** What settling an outcome needs of the message as it was received. */
export interface Received {
  /** The original body as received; sent unchanged to the dead-letter queue. */
  readonly body: string;
  /** SQS message id or EventBridge event id. */
  readonly sourceMessageId: string;
  /** 1 for the first delivery. */
  readonly receiveCount: number;
  /** No redelivery will follow: a retryable failure goes to the DLQ now, with its reason. */
  readonly isLastReceive: boolean;
  /**
   * Set when this is the last receive because the retry window is spent: a retryable failure
   * is dead-lettered as `RETRY_WINDOW_SPENT`, saying how long the message was tried.
   */
  readonly windowSpent?: { readonly triedForMs: number; readonly windowSeconds: number };
  /**
   * A direct invocation: the caller gets the result or the reason, so nothing is published on
   * the result bus and nothing is dead-lettered.
   */
  readonly answersCaller: boolean;
}

/** A message's outcome, decided, with what the logs, metrics and result event say of it. */
export interface Decided {
  readonly action: string;
  readonly correlationId: string;
  readonly outcome: Outcome;
  /** The parsed message: a read's result event quotes it. */
  readonly request: unknown;
  /** The ledger key of the entity (hashed ids), when the message was ordered. */
  readonly entity: string | undefined;
  readonly startedAt: number;
}

export interface SettleDependencies {
  readonly deadLetters: DeadLetterSink;
  /** Required for the read actions (search, query-existence) when triggered by SQS or EventBridge. */
  readonly results?: ResultPublisher;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly now?: () => number;
  /** Told how each receive of a message ended (the local run's report); it cannot change it. */
  readonly observer?: Observer;
}

/** A retryable failure whose retry window is spent (dead-letter reason). */
export const RETRY_WINDOW_SPENT = 'RETRY_WINDOW_SPENT' satisfies OwnCode;

/** The result of a read could not be put on the result bus (the platform call succeeded). */
export const RESULT_PUBLISH_FAILED = 'RESULT_PUBLISH_FAILED' satisfies OwnCode;

/** Reasons this integration authors (`OWN_CODES`) never quote values; platform texts might. */
const ownReason = (outcome: Outcome): boolean =>
  outcome.attempts === 0 || isOwnCode(outcome.code) || isAlreadyCode(outcome.code);

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

/**
 * Settles a decided outcome: a read's result goes on the result bus; permanent failures (and
 * retryable ones on the last receive) go to the DLQ with their reason, or back to a direct
 * caller; other retryable failures come back as `retry` for the caller to fail the record.
 * Logs and counts each. Throws only when the dead-letter send itself failed.
 */
export const settle = async (
  decided: Decided,
  inbound: Received,
  deps: SettleDependencies,
): Promise<Disposition> => {
  const now = deps.now ?? Date.now;
  const { correlationId, request, entity, startedAt } = decided;
  let outcome = decided.outcome;

  if (outcome.category === 'success' && !inbound.answersCaller && outcome.result !== undefined) {
    try {
      if (!deps.results) throw new Error('no result publisher configured');
      await deps.results.publish({
        action: decided.action,
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
    action: decided.action,
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

  if (outcome.code === HELD_BY_BRAKE) {
    deps.metrics.addMetric('DeletesHeld', MetricUnit.Count, 1);
    deps.logger.warn('message held by the mass-delete brake', logFields);
    return dispose('held', outcome);
  }
  if (outcome.category === 'success') {
    deps.metrics.addMetric(successMetric(outcome.code), MetricUnit.Count, 1);
    if (isSkip(outcome.code)) {
      deps.logger.info('message not sent: nothing of it is left to apply', logFields);
    } else if (isAlreadyCode(outcome.code)) {
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
      action: decided.action,
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
