import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';

export interface SqsRecordOptions {
  /** @default a random UUID */
  readonly messageId?: string;
  /** `ApproximateReceiveCount`. @default 1 */
  readonly receiveCount?: number;
  /** `SentTimestamp`, epoch ms. @default now */
  readonly sentAt?: number;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default 'contact-center-sync-test' */
  readonly queueName?: string;
}

/** One SQS record as the event source mapping delivers it; an object body is sent as its JSON. */
export const sqsRecord = (body: unknown, options: SqsRecordOptions = {}): SQSRecord => {
  const region = options.region ?? 'us-east-1';
  const sent = String(options.sentAt ?? Date.now());
  return {
    messageId: options.messageId ?? randomUUID(),
    receiptHandle: `handle-${randomUUID()}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: sent,
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: sent,
    },
    messageAttributes: {},
    md5OfBody: 'not-checked',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:${region}:123456789012:${options.queueName ?? 'contact-center-sync-test'}`,
    awsRegion: region,
  };
};

/** One SQS batch of these records. */
export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
