import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';

export const DEFAULT_QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:contact-center-sync-test';

export interface SqsRecordOptions {
  /** @default a random UUID */
  readonly messageId?: string;
  /** @default `handle-<random UUID>` */
  readonly receiptHandle?: string;
  /** `ApproximateReceiveCount`. @default 1 */
  readonly receiveCount?: number;
  /** `SentTimestamp`, epoch ms. @default now */
  readonly sentAt?: number;
  /** `ApproximateFirstReceiveTimestamp`, epoch ms. @default `sentAt` */
  readonly firstReceivedAt?: number;
  /** @default 'AIDAEXAMPLE' */
  readonly senderId?: string;
  /** @default none */
  readonly messageAttributes?: SQSMessageAttributes;
  /** The handlers never check it. @default 'not-checked' */
  readonly md5OfBody?: string;
  /** The queue the record comes from; its region is the record's `awsRegion`. @default DEFAULT_QUEUE_ARN */
  readonly queueArn?: string;
}

/**
 * One SQS record as Lambda's event source mapping hands it over; an object body is sent as its
 * JSON, a string as is.
 */
export const sqsRecord = (body: unknown, options: SqsRecordOptions = {}): SQSRecord => {
  const sentAt = options.sentAt ?? Date.now();
  const queueArn = options.queueArn ?? DEFAULT_QUEUE_ARN;
  return {
    messageId: options.messageId ?? randomUUID(),
    receiptHandle: options.receiptHandle ?? `handle-${randomUUID()}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: String(sentAt),
      SenderId: options.senderId ?? 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(options.firstReceivedAt ?? sentAt),
    },
    messageAttributes: options.messageAttributes ?? {},
    md5OfBody: options.md5OfBody ?? 'not-checked',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? 'us-east-1',
  };
};

/** One batch, as one invocation receives it. */
export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

/** The ids the handler reported as batch item failures, sorted; throws on any other answer. */
export const failedIds = (response: unknown): string[] => {
  const batch = response as SQSBatchResponse | undefined | null;
  if (!batch || !Array.isArray(batch.batchItemFailures)) {
    throw new Error(`not an SQS batch response: ${JSON.stringify(response)}`);
  }
  return batch.batchItemFailures.map((failure) => failure.itemIdentifier).sort();
};
