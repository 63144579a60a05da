/**
 * Cold start: a fresh process loads the bundled handler (its environment already set, as
 * Lambda sets it) and completes the first invocation: one SQS message, the API key read from
 * (fake) Secrets Manager, one platform call.
 *
 * Where the first invocation's time goes comes from node:http's diagnostics channels, which
 * the AWS SDK's request handler and the platform transport both go through: when each request
 * was created and when its response body ended. Subscribing happens before the clock starts
 * and only timestamps, so it adds nothing measurable to the span.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { pathToFileURL } from 'node:url';
import { failedIds } from '../../testkit/sqs-events';
import { benchContext, benchSqsEvent } from '../invocation';
import type { ColdStartJob, ColdStartResult, ExchangeTiming } from '../protocol';
import { handlerOf, readJob, report } from './report';

const job = readJob<ColdStartJob>();
const event = benchSqsEvent([job.body], job.lambda);
const bundleUrl = pathToFileURL(job.bundle).href;

type Party = 'secretsManager' | 'platform';
const hosts = new Map<string, Party>([
  [new URL(job.secretsManagerUrl).host, 'secretsManager'],
  [new URL(job.platformUrl).host, 'platform'],
]);
/** Absolute `performance.now()` stamps of each party's first exchange. */
const firstStart = new Map<Party, number>();
const firstEnd = new Map<Party, number>();
const requestParty = new WeakMap<ClientRequest, Party | undefined>();
let requests = 0;

subscribe('http.client.request.created', (message) => {
  const now = performance.now();
  const { request } = message as { request: ClientRequest };
  const party = hosts.get(String(request.getHeader('host')));
  requests += 1;
  requestParty.set(request, party);
  if (party !== undefined && !firstStart.has(party)) firstStart.set(party, now);
});
// Fires when the response headers arrive; the exchange ends with the body.
subscribe('http.client.response.finish', (message) => {
  const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
  const party = requestParty.get(request);
  if (party === undefined || firstEnd.has(party)) return;
  response.once('end', () => {
    if (!firstEnd.has(party)) firstEnd.set(party, performance.now());
  });
});

const started = performance.now();
const handler = handlerOf(await import(bundleUrl));
const loaded = performance.now();
const failures = failedIds(await handler(event, benchContext(job.lambda))).length;
const finished = performance.now();

const exchange = (party: Party): ExchangeTiming => {
  const start = firstStart.get(party);
  const end = firstEnd.get(party);
  if (start === undefined || end === undefined) {
    throw new Error(`the first invocation made no complete ${party} request`);
  }
  return { startMs: start - loaded, endMs: end - loaded };
};

report({
  bootMs: started,
  totalMs: finished - started,
  importMs: loaded - started,
  invokeMs: finished - loaded,
  failures,
  firstInvocation: {
    secretRead: exchange('secretsManager'),
    platformRequest: exchange('platform'),
    requests,
  },
} satisfies ColdStartResult);
