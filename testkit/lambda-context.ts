import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

interface ContextIdentity {
  /** @default 'contact-center-sync-test' */
  readonly functionName?: string;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default '123456789012' */
  readonly account?: string;
  /** @default 256 */
  readonly memoryMiB?: number;
  /** @default a random UUID */
  readonly awsRequestId?: string;
  /** @default '2026/01/01/[$LATEST]0123456789abcdef' */
  readonly logStreamName?: string;
}

/** The remaining time counts down in real time from the function timeout, as on AWS. */
interface CountingDown {
  readonly timeoutMs: number;
  /** Epoch ms; read at every call, so a replaced `Date.now` is followed. @default Date.now */
  readonly now?: () => number;
  readonly remainingMs?: never;
}

/** The remaining time never changes (a tiny value = the deadline is reached). */
interface Fixed {
  /** @default 60000 */
  readonly remainingMs?: number;
  readonly timeoutMs?: never;
  readonly now?: never;
}

export type LambdaContextOptions = ContextIdentity & (CountingDown | Fixed);

const callbacksNotSupported = (): never => {
  throw new Error('callback-style completion is not supported: the handlers are async');
};

/**
 * A Lambda invocation context shaped as the runtime passes one, for invoking a handler outside
 * Lambda (tests, the bench, the local run).
 */
export const lambdaContext = (o: LambdaContextOptions = {}): Context => {
  const functionName = o.functionName ?? 'contact-center-sync-test';
  let remaining: () => number;
  if (o.timeoutMs === undefined) {
    const fixed = o.remainingMs ?? 60_000;
    remaining = () => fixed;
  } else {
    const now = o.now ?? (() => Date.now());
    const deadline = now() + o.timeoutMs;
    remaining = () => Math.max(0, deadline - now());
  }
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${o.region ?? 'us-east-1'}:${o.account ?? '123456789012'}:function:${functionName}`,
    memoryLimitInMB: String(o.memoryMiB ?? 256),
    awsRequestId: o.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: o.logStreamName ?? '2026/01/01/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: remaining,
    done: callbacksNotSupported,
    fail: callbacksNotSupported,
    succeed: callbacksNotSupported,
  };
};
