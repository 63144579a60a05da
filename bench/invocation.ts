/**
 * How the bench invokes a handler as Lambda would for its `LambdaShape`: SQS batches from the
 * function's queue and a context counting down from the function timeout. The shapes come from
 * the shared kit; the cold-start worker imports this before its clock starts, so only the two
 * kit files it needs are loaded.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../testkit/lambda-context';
import { sqsEvent, sqsRecord } from '../testkit/sqs-events';
import type { LambdaShape } from './protocol';

const ACCOUNT = '123456789012';

/** One SQS batch holding `bodies`, first delivery of each. */
export const benchSqsEvent = (bodies: readonly string[], lambda: LambdaShape): SQSEvent =>
  sqsEvent(
    ...bodies.map((body) =>
      sqsRecord(body, {
        senderId: 'AIDABENCH',
        md5OfBody: '',
        queueArn: `arn:aws:sqs:${lambda.region}:${ACCOUNT}:${lambda.functionName}-queue`,
      }),
    ),
  );

/** A fresh invocation context whose remaining time counts down from the function timeout. */
export const benchContext = (lambda: LambdaShape): Context =>
  lambdaContext({
    functionName: lambda.functionName,
    region: lambda.region,
    account: ACCOUNT,
    memoryMiB: lambda.memoryMiB,
    logStreamName: 'bench',
    timeoutMs: lambda.timeoutMs,
  });
