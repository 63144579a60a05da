import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { ActionName } from '../../lambdas/actions';

/**
 * A Lambda invocation context for a local invocation: the remaining time counts down from the
 * function timeout in real time, so the handler's in-process retries stop where they would on AWS.
 */
export const lambdaContext = (
  action: ActionName,
  timeoutSeconds: number,
  now: () => number = Date.now,
): Context => {
  const functionName = `contact-center-sync-local-${action}`;
  const deadline = now() + timeoutSeconds * 1000;
  const notSupported = (): never => {
    throw new Error('callback-style completion is not supported by async handlers');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: notSupported,
    fail: notSupported,
    succeed: notSupported,
  };
};
