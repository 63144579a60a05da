/**
 * Throughput baseline: the handler's platform requests (same URL, headers and bodies), sent
 * with a bare keep-alive `fetch` loop, `concurrency` in flight.
 */
import { readFileSync } from 'node:fs';
import type { MessagePhases, RecordedRequest, RequestLoadJob } from '../protocol';
import { readJob, reportLoad, timePhase } from './report';

const job = readJob<RequestLoadJob>();
const requests = JSON.parse(
  readFileSync(job.requestsFile, 'utf8'),
) as MessagePhases<RecordedRequest>;

const run = (list: readonly RecordedRequest[]) =>
  timePhase(list, job.concurrency, list.length, async (request) => {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
    });
    // Reading the body to the end hands the socket back to the keep-alive pool.
    await response.text();
    return response.status === 200 ? 0 : 1;
  });

await reportLoad(run, requests);
