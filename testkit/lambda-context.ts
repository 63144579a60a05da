import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export interface LambdaContextOptions {
  /** @default 'contact-center-sync-test' */
  readonly functionName?: string;
  /** The function timeout: the remaining time counts down from it. @default 60000 */
  readonly timeoutMs?: number;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default 256 */
  readonly memoryMiB?: number;
  /** @default a random UUID */
  readonly awsRequestId?: string;
  /** The clock the remaining time is read on (a virtual one in the local run). @default Date.now */
  readonly now?: () => number;
}

/**
 * A Lambda invocation context as the runtime passes one: the remaining time counts down from the
 * function timeout, so a handler's in-process retries stop where they would on AWS. For tests,
 * the bench and the local run alike.
 */
export const lambdaContext = (options: LambdaContextOptions = {}): Context => {
  const now = options.now ?? Date.now;
  const functionName = options.functionName ?? 'contact-center-sync-test';
  const region = options.region ?? 'us-east-1';
  const deadline = now() + (options.timeoutMs ?? 60_000);
  const notSupported = (): never => {
    throw new Error('callback-style completion is not supported by async handlers');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:123456789012:function:${functionName}`,
    memoryLimitInMB: String(options.memoryMiB ?? 256),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/01/01/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: notSupported,
    fail: notSupported,
    succeed: notSupported,
  };
};
