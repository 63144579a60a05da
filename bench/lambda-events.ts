/**
 * SQS events and Lambda contexts shaped as Lambda delivers them, for driving a handler
 * outside Lambda.
 */
import { randomUUID } from 'node:crypto';
import type { Context, SQSEvent } from 'aws-lambda';
import type { LambdaShape } from './protocol';

const ACCOUNT = '123456789012';

/** One SQS batch holding `bodies`, first delivery of each. */
export const sqsEvent = (bodies: readonly string[], lambda: LambdaShape): SQSEvent => {
  const sent = String(Date.now());
  return {
    Records: bodies.map((body) => ({
      messageId: randomUUID(),
      receiptHandle: `bench-${randomUUID()}`,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: sent,
        SenderId: 'AIDABENCH',
        ApproximateFirstReceiveTimestamp: sent,
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:${lambda.region}:${ACCOUNT}:${lambda.functionName}-queue`,
      awsRegion: lambda.region,
    })),
  };
};

/** A fresh invocation context whose remaining time counts down from the function timeout. */
export const lambdaContext = (lambda: LambdaShape): Context => {
  const deadline = Date.now() + lambda.timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: lambda.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${lambda.region}:${ACCOUNT}:function:${lambda.functionName}`,
    memoryLimitInMB: String(lambda.memoryMiB),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${lambda.functionName}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

/** Splits `items` into consecutive groups of `size`. */
export const chunk = <T>(items: readonly T[], size: number): T[][] => {
  const groups: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    groups.push(items.slice(start, start + size));
  }
  return groups;
};

/** Runs `work` over `items` with at most `concurrency` calls in flight, in order of start. */
export const forEachConcurrently = async <T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> => {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
};
