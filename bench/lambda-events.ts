/**
 * The bench's view of the shared kit: batches and contexts for the function it measures, and
 * the small helpers its workers share.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { lambdaContext as kitContext, sqsEvent as kitEvent, sqsRecord } from '../testkit';
import type { LambdaShape } from './protocol';

/** One SQS batch holding `bodies`, first delivery of each, from the function's own queue. */
export const sqsEvent = (bodies: readonly string[], lambda: LambdaShape): SQSEvent => {
  const sentAt = Date.now();
  const queueName = `${lambda.functionName}-queue`;
  return kitEvent(
    ...bodies.map((body) => sqsRecord(body, { region: lambda.region, queueName, sentAt })),
  );
};

/** A fresh invocation context whose remaining time counts down from the function timeout. */
export const lambdaContext = (lambda: LambdaShape): Context =>
  kitContext({
    functionName: lambda.functionName,
    timeoutMs: lambda.timeoutMs,
    region: lambda.region,
    memoryMiB: lambda.memoryMiB,
  });

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
