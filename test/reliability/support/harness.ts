/**
 * The real handler of an action (`createActionHandler`) wired to test doubles of the AWS side:
 * an in-memory dead-letter queue and result bus that can be told to fail, the in-memory API key
 * source, a Powertools logger at DEBUG whose output the suites capture, and SQS batch events.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { vi } from 'vitest';
import { type ActionName, actionDefinition } from '../../../lambdas/actions';
import {
  createActionHandler,
  type HandlerDependencies,
} from '../../../lambdas/core/entry/invocation-entry';
import type {
  ApiKeySource,
  DeadLetterReason,
  DeadLetterSink,
  ResultEvent,
  ResultPublisher,
} from '../../../lambdas/core/entry/ports';
import { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import {
  METRICS_NAMESPACE,
  requestObserver,
  SERVICE_NAME,
} from '../../../lambdas/core/observability/observability';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import type {
  HttpSettings,
  PlatformSettings,
} from '../../../lambdas/core/platform/platform-settings';
import { orderedWith } from '../../../lambdas/entities';
import { failedIds, sqsRecord as kitSqsRecord, lambdaContext } from '../../../testkit';
import { TEST_TENANT } from '../../support/test-tenant';

/** Tenant of the simulator and of the clients. */
export const TENANT = TEST_TENANT;

/** Where the fake functions and queues live (the secrets region). */
const REGION = 'eu-west-2';

export const settingsFor = (baseUrl: string): PlatformSettings => ({
  ...TENANT,
  baseUrl,
  campaignRegion: 'eu-central-1',
  secretsRegion: REGION,
});

/** Fast retries so fault runs take seconds: small timeout, tiny backoff. */
export const FAST_HTTP: HttpSettings = {
  requestTimeoutMs: 250,
  maxAttempts: 3,
  baseDelayMs: 2,
  maxDelayMs: 10,
};

export interface DeadLetter {
  readonly body: string;
  readonly reason: DeadLetterReason;
}

/** A dead-letter queue in memory; `failNext` sends throw first (an SQS outage). */
export class RecordingDeadLetters implements DeadLetterSink {
  readonly entries: DeadLetter[] = [];
  failNext = 0;
  failures = 0;

  async send(body: string, reason: DeadLetterReason): Promise<void> {
    if (this.failNext > 0) {
      this.failNext -= 1;
      this.failures += 1;
      throw new Error('SQS SendMessage failed: ServiceUnavailable (simulated)');
    }
    this.entries.push({ body, reason });
  }
}

/** A result bus in memory; `failNext` publishes throw first (an EventBridge outage). */
export class RecordingResults implements ResultPublisher {
  readonly events: ResultEvent[] = [];
  failNext = 0;
  failures = 0;

  async publish(event: ResultEvent): Promise<void> {
    if (this.failNext > 0) {
      this.failNext -= 1;
      this.failures += 1;
      throw new Error('PutEvents failed: InternalException (simulated)');
    }
    this.events.push(event);
  }
}

export interface TestHandlerOptions {
  readonly baseUrl: string;
  readonly apiKey: ApiKeySource;
  readonly deadLetters?: DeadLetterSink;
  readonly results?: ResultPublisher;
  readonly http?: Partial<HttpSettings>;
  readonly maxReceiveCount?: number;
  readonly recordConcurrency?: number;
  readonly safetyMarginMs?: number;
  /** Orders each entity's events (write actions). @default a ledger of its own, in memory */
  readonly ledger?: EntityLedger;
}

export type TestHandler = (event: unknown, context: Context) => Promise<unknown>;

/** Logger at DEBUG so the leak checks see every line the handler can write. */
export const testLogger = (action: ActionName): Logger =>
  new Logger({ serviceName: SERVICE_NAME, logLevel: 'DEBUG', persistentKeys: { action } });

export const testHandler = (action: ActionName, options: TestHandlerOptions): TestHandler => {
  const logger = testLogger(action);
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
  const deps: HandlerDependencies = {
    // Wired as the Lambda entry point wires it: every request seen by the logger and metrics.
    platform: new PlatformCaller(
      settingsFor(options.baseUrl),
      options.apiKey,
      { ...FAST_HTTP, ...options.http },
      { observer: requestObserver(logger, metrics) },
    ),
    deadLetters: options.deadLetters ?? new RecordingDeadLetters(),
    ...(options.results ? { results: options.results } : {}),
    logger,
    metrics,
    maxReceiveCount: options.maxReceiveCount ?? 3,
    ...orderedWith(
      actionDefinition(action),
      options.ledger ?? new EntityLedger({ store: new InMemoryLedgerStore() }),
    ),
    campaignRegion: settingsFor(options.baseUrl).campaignRegion,
    ...(options.recordConcurrency === undefined
      ? {}
      : { recordConcurrency: options.recordConcurrency }),
    ...(options.safetyMarginMs === undefined ? {} : { safetyMarginMs: options.safetyMarginMs }),
  };
  return createActionHandler(actionDefinition(action), deps);
};

/** A Lambda context whose remaining time is fixed (a tiny value = deadline reached). */
export const fakeContext = (remainingMs = 60_000, requestId = 'req-1'): Context =>
  lambdaContext({ remainingMs, awsRequestId: requestId, region: REGION, logStreamName: 'test' });

export interface SqsInput {
  readonly messageId: string;
  readonly body: string;
  readonly receiveCount?: number;
}

export const sqsRecord = ({ messageId, body, receiveCount = 1 }: SqsInput): SQSRecord =>
  kitSqsRecord(body, {
    messageId,
    receiptHandle: `rh-${messageId}-${receiveCount}`,
    receiveCount,
    sentAt: 1_700_000_000_000,
    md5OfBody: '',
    queueArn: `arn:aws:sqs:${REGION}:123456789012:test-queue`,
  });

export const sqsEvent = (records: readonly SqsInput[]): SQSEvent => ({
  Records: records.map(sqsRecord),
});

/** Ids of the records the handler reported as failed (to be redelivered). */
export { failedIds };

export interface CapturedOutput {
  /** Everything written to stdout / stderr since `captureOutput()`, one entry per write. */
  readonly writes: string[];
  stop(): void;
}

/**
 * Captures what the handler prints (Powertools writes its JSON lines to process.stdout /
 * stderr): exactly what would reach CloudWatch Logs. Nothing is echoed to the terminal.
 */
export const captureOutput = (): CapturedOutput => {
  const writes: string[] = [];
  const capture = (chunk: unknown): boolean => {
    writes.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture as never);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture as never);
  return {
    writes,
    stop: () => {
      out.mockRestore();
      err.mockRestore();
    },
  };
};

/** Delivers `records` as one SQS batch, in one invocation; returns the ids reported as failed. */
export const deliverBatch = async (
  handler: TestHandler,
  records: readonly SqsInput[],
): Promise<string[]> => failedIds(await handler(sqsEvent(records), fakeContext()));

/**
 * Delivers `bodies` as SQS would: receive 1 for all, then every record the handler reported as
 * failed again with the next receive count, up to `maxReceiveCount`. Returns the records still
 * failing after the last receive (SQS's redrive policy would move them to the DLQ).
 */
export const deliverWithRedelivery = async (
  handler: TestHandler,
  bodies: readonly string[],
  maxReceiveCount: number,
  idPrefix = 'm',
): Promise<SqsInput[]> => {
  let pending: SqsInput[] = bodies.map((body, i) => ({ messageId: `${idPrefix}-${i}`, body }));
  for (let receive = 1; receive <= maxReceiveCount && pending.length > 0; receive += 1) {
    const batch = pending.map((record) => ({ ...record, receiveCount: receive }));
    const failed = new Set(await deliverBatch(handler, batch));
    pending = pending.filter((record) => failed.has(record.messageId));
  }
  return pending;
};
