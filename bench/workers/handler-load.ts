/**
 * Throughput, handler side: the bundled handler (its real clients, key source and logger)
 * consumes every message in SQS batches, `batchesInFlight` invocations at a time, as the event
 * source mapping's maximum concurrency allows. One module instance serves them all, so the
 * peak RSS is an upper bound for one container, which runs one batch at a time.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chunk, forEachConcurrently, lambdaContext, sqsEvent } from '../lambda-events';
import type { HandlerLoadJob, LoadResult, MessagePhases, PhaseResult } from '../protocol';
import { cpuMs, failedRecords, handlerOf, readJob, report } from './report';

const job = readJob<HandlerLoadJob>();
const messages = JSON.parse(readFileSync(job.messagesFile, 'utf8')) as MessagePhases<string>;
const handler = handlerOf(await import(pathToFileURL(job.bundle).href));

const run = async (bodies: readonly string[]): Promise<PhaseResult> => {
  // Events are built before the clock starts: SQS builds them, not the function.
  const events = chunk(bodies, job.batchSize).map((batch) => sqsEvent(batch, job.lambda));
  let failures = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await forEachConcurrently(events, job.batchesInFlight, async (event) => {
    failures += failedRecords(await handler(event, lambdaContext(job.lambda)));
  });
  return {
    items: bodies.length,
    elapsedMs: performance.now() - started,
    failures,
    cpuMs: cpuMs(cpuBefore),
  };
};

const warmup = await run(messages.warmup);
const measured = await run(messages.measured);
report({
  warmup,
  measured,
  maxRssKiB: process.resourceUsage().maxRSS,
} satisfies LoadResult);
