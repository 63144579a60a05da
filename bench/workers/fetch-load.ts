/**
 * Throughput baseline: the handler's platform requests (same URL, headers and bodies), sent
 * with a bare keep-alive `fetch` loop, `concurrency` in flight.
 */
import { readFileSync } from 'node:fs';
import { forEachConcurrently } from '../lambda-events';
import type {
  LoadResult,
  MessagePhases,
  PhaseResult,
  RecordedRequest,
  RequestLoadJob,
} from '../protocol';
import { cpuMs, readJob, report } from './report';

const job = readJob<RequestLoadJob>();
const requests = JSON.parse(
  readFileSync(job.requestsFile, 'utf8'),
) as MessagePhases<RecordedRequest>;

const run = async (list: readonly RecordedRequest[]): Promise<PhaseResult> => {
  let failures = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await forEachConcurrently(list, job.concurrency, async (request) => {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
    });
    // Reading the body to the end hands the socket back to the keep-alive pool.
    await response.text();
    if (response.status !== 200) failures += 1;
  });
  return {
    items: list.length,
    elapsedMs: performance.now() - started,
    failures,
    cpuMs: cpuMs(cpuBefore),
  };
};

const warmup = await run(requests.warmup);
const measured = await run(requests.measured);
report({
  warmup,
  measured,
  maxRssKiB: process.resourceUsage().maxRSS,
} satisfies LoadResult);
