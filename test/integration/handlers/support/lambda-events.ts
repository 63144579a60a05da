/**
 * The events Lambda hands the entry points, built the way the services build them: an SQS
 * batch (event source mapping), an EventBridge event (rule target = function, or the body an
 * EventBridge → SQS rule target delivers) and a Lambda context with a deadline.
 */
import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { ActionName } from '../../../../lambdas/actions';

export interface SqsRecordOptions {
  /** @default a random UUID */
  readonly messageId?: string;
  /** `ApproximateReceiveCount`. @default 1 */
  readonly receiveCount?: number;
}

/** One SQS record; an object body is sent as its JSON, a string as is. */
export const sqsRecord = (body: unknown, options: SqsRecordOptions = {}): SQSRecord => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    messageId: options.messageId ?? randomUUID(),
    receiptHandle: `handle-${randomUUID()}`,
    body: text,
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: 'not-checked',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:contact-center-sync-test',
    awsRegion: 'us-east-1',
  };
};

export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

export interface EventBridgeEvent {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: unknown;
}

/** An EventBridge event carrying `detail`, routed by `detail-type` = the action name. */
export const eventBridgeEvent = (
  detailType: ActionName | string,
  detail: unknown,
  id: string = randomUUID(),
): EventBridgeEvent => ({
  version: '0',
  id,
  'detail-type': detailType,
  source: 'crm.example',
  account: '123456789012',
  time: new Date().toISOString(),
  region: 'us-east-1',
  resources: [],
  detail,
});

/** A Lambda context with a minute left, the way the runtime passes one. */
export const lambdaContext = (awsRequestId: string = randomUUID()): Context => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'contact-center-sync-test',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:contact-center-sync-test',
  memoryLimitInMB: '256',
  awsRequestId,
  logGroupName: '/aws/lambda/contact-center-sync-test',
  logStreamName: '2026/01/01/[$LATEST]0123456789abcdef',
  getRemainingTimeInMillis: () => 60_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

/** The ids the handler reported as batch item failures; fails on anything else it returned. */
export const failedIds = (response: unknown): string[] => {
  const batch = response as SQSBatchResponse | undefined;
  if (!batch || !Array.isArray(batch.batchItemFailures)) {
    throw new Error(`not an SQS batch response: ${JSON.stringify(response)}`);
  }
  return batch.batchItemFailures.map((failure) => failure.itemIdentifier).sort();
};
