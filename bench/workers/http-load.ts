/**
 * Informational throughput baseline: the handler's platform requests (same URL, headers and
 * bodies), sent with a bare keep-alive `node:http` loop, `concurrency` in flight. The agent
 * pools sockets with the product transport's own settings (`AGENT_OPTIONS` of
 * lambdas/core/http.ts), so the only difference to the handler's requests is everything the
 * handler does around them. Like the bare fetch loop, it sends the recorded headers and leaves
 * the rest to the library (node:http adds Host and Connection; the product transport also adds
 * fetch's default headers, which is part of the handler's cost).
 */
import { readFileSync } from 'node:fs';
import { type ClientRequestArgs, Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { Duplex } from 'node:stream';
import { AGENT_OPTIONS } from '../../lambdas/core/http';
import type { MessagePhases, RecordedRequest, RequestLoadJob } from '../protocol';
import { readJob, reportLoad, timePhase } from './report';

/** Counts the connections it opens, so the bench can check the loop really kept them alive. */
class CountingAgent extends HttpAgent {
  opened = 0;

  override createConnection(
    options: ClientRequestArgs,
    callback?: (error: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    this.opened += 1;
    return super.createConnection(options, callback);
  }
}

interface Target {
  readonly hostname: string;
  readonly port: string;
  readonly path: string;
}

const job = readJob<RequestLoadJob>();
const requests = JSON.parse(
  readFileSync(job.requestsFile, 'utf8'),
) as MessagePhases<RecordedRequest>;
const agent = new CountingAgent(AGENT_OPTIONS);

// Parsed once per URL before any clock starts (fetch parses its URL string per call; the
// product transport caches the parse, as here).
const targets = new Map<string, Target>();
for (const { url } of [...requests.warmup, ...requests.measured]) {
  if (targets.has(url)) continue;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:') throw new Error(`the bare loop speaks http only: ${url}`);
  targets.set(url, {
    hostname: parsed.hostname,
    port: parsed.port,
    path: `${parsed.pathname}${parsed.search}`,
  });
}

/** One POST; resolves with the status once the whole body is read (which frees the socket). */
const send = (request: RecordedRequest): Promise<number> =>
  new Promise((resolve, reject) => {
    const target = targets.get(request.url);
    if (target === undefined) throw new Error(`no target for ${request.url}`);
    const outgoing = httpRequest(
      {
        agent,
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        method: 'POST',
        headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        // The text is decoded as fetch's `response.text()` does in the other loop.
        response.on('end', () => {
          Buffer.concat(chunks).toString('utf8');
          resolve(response.statusCode ?? 0);
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });

const run = (list: readonly RecordedRequest[]) =>
  timePhase(list, job.concurrency, list.length, async (request) =>
    (await send(request)) === 200 ? 0 : 1,
  );

await reportLoad(run, requests, { socketsOpened: agent.opened });
