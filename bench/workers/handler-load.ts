/**
 * Throughput, handler side: the bundled handler (its real clients, key source and logger)
 * consumes every message in SQS batches, `batchesInFlight` invocations at a time, as the event
 * source mapping's maximum concurrency allows. One module instance serves them all, so the
 * peak RSS is an upper bound for one container, which runs one batch at a time.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { failedIds } from '../../testkit/sqs-events';
import { chunk } from '../batching';
import { benchContext, benchSqsEvent } from '../invocation';
import type { HandlerLoadJob, MessagePhases } from '../protocol';
import { handlerOf, readJob, reportLoad, timePhase } from './report';

const job = readJob<HandlerLoadJob>();
const messages = JSON.parse(readFileSync(job.messagesFile, 'utf8')) as MessagePhases<string>;
const handler = handlerOf(await import(pathToFileURL(job.bundle).href));

const run = (bodies: readonly string[]) => {
  // Events are built before the clock starts: SQS builds them, not the function.
  const events = chunk(bodies, job.batchSize).map((batch) => benchSqsEvent(batch, job.lambda));
  return timePhase(
    events,
    job.batchesInFlight,
    bodies.length,
    async (event) => failedIds(await handler(event, benchContext(job.lambda))).length,
  );
};

await reportLoad(run, messages);
