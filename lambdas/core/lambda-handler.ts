import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AnyAction } from './action';
import { type AwsClientConfig, lambdaClientConfig } from './aws/client-config';
import { DynamoDbBrakeStore } from './aws/dynamodb-brake-store';
import { DynamoDbBreakerStore } from './aws/dynamodb-breaker-store';
import { DynamoDbCensusStore } from './aws/dynamodb-census-store';
import { SecretsManagerApiKeySource } from './aws/secrets-manager-api-key-source';
import { SqsDeadLetterSink } from './aws/sqs-dead-letter-sink';
import { SqsHeldQueue } from './aws/sqs-held-queue';
import { SqsVisibilityRescheduler } from './aws/sqs-visibility-rescheduler';
import { createLimiter } from './concurrency';
import type { Disposition } from './disposition';
import { entityOf, inEventOrder, oneEntityAtATime } from './entity-batching';
import { isEventBridgeEvent } from './envelope';
import { DynamoDbLedgerStore } from './ledger/dynamodb-ledger-store';
import { EntityLedger } from './ledger/entity-ledger';
import { BRAKE_RELEASED_ATTRIBUTE, MassDeleteBrake } from './mass-delete-brake';
import { loggableMessage, type ProcessorDependencies, processMessage } from './message-processor';
import {
  availabilityMetric,
  brakeLog,
  breakerLog,
  censusLog,
  createLogger,
  createMetrics,
  requestObserver,
} from './observability';
import { RetryableFailure } from './outcome';
import { PlatformCaller } from './platform-caller';
import { guardFor } from './platform-guard';
import type { Rescheduler, ResultPublisher } from './ports';
import { nextDelaySeconds, type RetrySchedule, windowSpent } from './retry-schedule';
import { readRuntimeEnv } from './runtime-env';

/**
 * The Lambda handler of one action: how it is built from the environment (once per container)
 * and how it routes an invocation (SQS batch, EventBridge event, direct call) to the message
 * processor.
 */

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

/** Builds the publisher of a read action's results (an entry point's choice, see below). */
export type ResultPublisherFactory = (options: {
  readonly eventBusName: string;
  readonly clientConfig: AwsClientConfig;
}) => ResultPublisher;

/**
 * The Lambda entry point of one action: reads the environment contract (a bad deployment
 * fails here, at cold start, naming the variable) and wires the AWS SDK adapters. Everything
 * is created once per container; SDK clients take the function's region and credentials from
 * the environment Lambda sets (`lambdaClientConfig`) and their endpoints from the standard
 * configuration (`AWS_ENDPOINT_URL_*`). One DynamoDB client serves the breaker and the ledger.
 */
export const createLambdaHandler = (
  action: AnyAction,
  options: {
    /**
     * `off` builds a write function without the entity ledger: only the bench uses it, to
     * measure what the ledger costs. @default 'required' for writes
     */
    readonly ledger?: 'required' | 'off';
    /**
     * Publishes a read action's results; required for reads. The read entry points pass it, so
     * that only their bundles carry the EventBridge client. @default none
     */
    readonly results?: ResultPublisherFactory;
    /**
     * Settings of every AWS SDK client. The bench passes `{}` to measure the SDK's own default
     * credential chain. @default lambdaClientConfig(): region and credentials from the environment
     */
    readonly clientConfig?: AwsClientConfig;
  } = {},
) => {
  const isRead = action.kind === 'read';
  const withLedger = !isRead && options.ledger !== 'off';
  const env = readRuntimeEnv(process.env, { requireResultBus: isRead, requireLedger: withLedger });
  if (isRead && options.results === undefined) {
    throw new Error(`${action.name} is a read action: its entry point must pass \`results\``);
  }
  const clientConfig = options.clientConfig ?? lambdaClientConfig();
  const logger = createLogger(action.name);
  const metrics = createMetrics(action.name);
  const apiKey = new SecretsManagerApiKeySource({
    secretId: env.API_KEY_SECRET_ID,
    secretsRegion: env.API_KEY_SECRETS_REGION,
    maxAgeSeconds: env.API_KEY_MAX_AGE_SECONDS,
    clientConfig,
  });
  const ledgerTable = withLedger ? env.LEDGER_TABLE_NAME : undefined;
  const table = env.BREAKER_TABLE_NAME;
  const dynamoDb =
    table === undefined && ledgerTable === undefined
      ? undefined
      : new DynamoDBClient({ ...clientConfig });
  const guard = guardFor(action.service, {
    store:
      table === undefined
        ? undefined
        : new DynamoDbBreakerStore({ tableName: table, client: dynamoDb }),
    ceilingPerSecond: env.PLATFORM_RATE_LIMIT_PER_SECOND,
    census:
      table === undefined || env.PLATFORM_RATE_CEILING_PER_SECOND === undefined
        ? undefined
        : {
            store: new DynamoDbCensusStore({ tableName: table, client: dynamoDb }),
            serviceCeilingPerSecond: env.PLATFORM_RATE_CEILING_PER_SECOND,
            events: censusLog(logger),
          },
    events: breakerLog(logger),
  });
  const platform = new PlatformCaller(
    {
      platformCode: env.PLATFORM_CODE,
      companyCode: env.COMPANY_CODE,
      environmentName: env.ENVIRONMENT_NAME,
      baseUrl: env.API_BASE_URL,
      campaignRegion: env.CAMPAIGN_REGION,
      secretsRegion: env.API_KEY_SECRETS_REGION,
    },
    apiKey,
    {},
    { observer: requestObserver(logger, metrics), ...(guard ? { guard } : {}) },
  );
  const ledger =
    ledgerTable === undefined
      ? undefined
      : new EntityLedger({
          store: new DynamoDbLedgerStore({ tableName: ledgerTable, client: dynamoDb }),
          tombstoneDays: env.LEDGER_TOMBSTONE_DAYS,
        });
  const brake =
    env.HELD_QUEUE_URL === undefined ||
    env.LEDGER_TABLE_NAME === undefined ||
    env.DELETE_BRAKE_LIMIT === undefined ||
    env.DELETE_BRAKE_WINDOW_SECONDS === undefined ||
    action.destructive === undefined
      ? undefined
      : {
          gate: new MassDeleteBrake(
            action.name,
            new DynamoDbBrakeStore({ tableName: env.LEDGER_TABLE_NAME, client: dynamoDb }),
            { limit: env.DELETE_BRAKE_LIMIT, windowMs: env.DELETE_BRAKE_WINDOW_SECONDS * 1000 },
            { events: brakeLog(logger) },
          ),
          held: new SqsHeldQueue({ queueUrl: env.HELD_QUEUE_URL, clientConfig }),
        };
  return createActionHandler(action, {
    platform,
    ...(ledger ? { ledger } : {}),
    ...(brake ? { brake } : {}),
    campaignRegion: env.CAMPAIGN_REGION,
    deadLetters: new SqsDeadLetterSink({ queueUrl: env.DEAD_LETTER_QUEUE_URL, clientConfig }),
    ...(env.RESULT_EVENT_BUS_NAME === undefined || options.results === undefined
      ? {}
      : { results: options.results({ eventBusName: env.RESULT_EVENT_BUS_NAME, clientConfig }) }),
    logger,
    metrics,
    maxReceiveCount: env.MAX_RECEIVE_COUNT,
    recordConcurrency: env.MAX_RECORD_CONCURRENCY,
    ...(env.SOURCE_QUEUE_URL === undefined
      ? {}
      : {
          rescheduler: new SqsVisibilityRescheduler({
            queueUrl: env.SOURCE_QUEUE_URL,
            clientConfig,
          }),
          retrySchedule: {
            windowSeconds: env.RETRY_WINDOW_SECONDS,
            firstDelaySeconds: env.RETRY_FIRST_DELAY_SECONDS,
            maxDelaySeconds: env.RETRY_MAX_DELAY_SECONDS,
          },
        }),
    ...(guard?.services.length ? { availability: availabilityMetric(guard) } : {}),
  });
};

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
