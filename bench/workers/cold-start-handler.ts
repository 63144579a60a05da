/**
 * Cold start: a fresh process loads the bundled handler (its environment already set, as
 * Lambda sets it) and completes the first invocation: one SQS message, the API key read from
 * (fake) Secrets Manager, one platform call.
 */
import { pathToFileURL } from 'node:url';
import { lambdaContext, sqsEvent } from '../lambda-events';
import type { ColdStartJob, ColdStartResult } from '../protocol';
import { failedRecords, handlerOf, readJob, report } from './report';

const job = readJob<ColdStartJob>();
const event = sqsEvent([job.body], job.lambda);
const bundleUrl = pathToFileURL(job.bundle).href;

const started = performance.now();
const handler = handlerOf(await import(bundleUrl));
const loaded = performance.now();
const failures = failedRecords(await handler(event, lambdaContext(job.lambda)));
const finished = performance.now();

report({
  bootMs: started,
  totalMs: finished - started,
  importMs: loaded - started,
  invokeMs: finished - loaded,
  failures,
} satisfies ColdStartResult);
