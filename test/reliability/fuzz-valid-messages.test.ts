/**
 * Property-based: random VALID messages of every action (derived from the zod schemas, see
 * support/message-arbitraries.ts) are accepted unchanged and reach the platform exactly as the
 * specs shape them: path, the Content-Type and five X-sc headers, and the body. A read goes
 * through its handler; a write's request is the one its entity's platform steps send
 * (`PlatformCaller.send` of the action), since what the ledger makes of a message is the
 * entity's (test/reliability/convergence, test/unit/entities).
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAMES, actionDefinition, parseMessage, READ_ACTIONS } from '../../lambdas/actions';
import { PlatformCaller } from '../../lambdas/core/platform/platform-caller';
import { InMemoryApiKeySource } from '../../testkit';
import { type CaptureServer, startCaptureServer } from '../support/capture-server';
import { propertySeed } from '../support/size-from-env';
import {
  type CapturedOutput,
  captureOutput,
  deliverBatch,
  FAST_HTTP,
  RecordingDeadLetters,
  RecordingResults,
  settingsFor,
  testHandler,
} from './support/harness';
import { type Message, validMessage } from './support/message-arbitraries';
import { governedHeaders, specRequest, successBody } from './support/spec-request';

/** Cases per action and property; fixed seeds keep CI deterministic. */
const RUNS = 300;
const SEED = propertySeed(20_260_701);
const API_KEY = 'fuzz-valid-api-key-4c1d9e';

let server: CaptureServer;
let output: CapturedOutput;
const casesRun: Record<string, number> = {};
let messagesSent = 0;

beforeAll(async () => {
  server = await startCaptureServer((request) => ({
    status: 200,
    body: successBody(request.path, request.body),
  }));
  output = captureOutput();
});

afterAll(async () => {
  output?.stop();
  await server?.close();
  console.log(
    `fuzz-valid-messages: ${messagesSent} messages sent; cases ${Object.entries(casesRun)
      .map(([name, count]) => `${name}=${count}`)
      .join(', ')}`,
  );
});

const count = (name: string): void => {
  casesRun[name] = (casesRun[name] ?? 0) + 1;
};

describe.each(ACTION_NAMES.map((action, index) => ({ action, index })))(
  'valid $action messages',
  ({ action, index }) => {
    it('pass parseMessage unchanged', () => {
      // Prepare
      const messages = validMessage(action);

      // Act / Assess
      fc.assert(
        fc.property(messages, (message) => {
          count(`${action}:parse`);
          const parsed = parseMessage(action, message);
          expect(parsed.success ? parsed.message : parsed.error).toStrictEqual(message);
        }),
        { seed: SEED + index, numRuns: RUNS },
      );
    });

    it('are sent exactly as the spec shapes them', async () => {
      // Prepare
      const settings = settingsFor(server.baseUrl);
      const deadLetters = new RecordingDeadLetters();
      const results = new RecordingResults();
      // A loaded CI machine must not turn into a timeout and a second (retried) request.
      const http = { requestTimeoutMs: 60_000 };
      const isRead = READ_ACTIONS.includes(action);
      const handler = isRead
        ? testHandler(action, {
            baseUrl: server.baseUrl,
            apiKey: new InMemoryApiKeySource(API_KEY),
            deadLetters,
            results,
            // One record at a time: requests never interleave.
            recordConcurrency: 1,
            http,
          })
        : undefined;
      const platform = new PlatformCaller(settings, new InMemoryApiKeySource(API_KEY), {
        ...FAST_HTTP,
        ...http,
      });
      const definition = actionDefinition(action);
      let batch = 0;

      // Act / Assess
      await fc.assert(
        fc.asyncProperty(
          fc.array(validMessage(action), { minLength: 1, maxLength: 3 }),
          async (messages: Message[]) => {
            count(`${action}:send`);
            messagesSent += messages.length;
            batch += 1;
            const before = server.requests.length;
            const publishedBefore = results.events.length;
            const writesBefore = output.writes.length;
            const records = messages.map((message, i) => ({
              messageId: `m-${batch}-${i}`,
              body: JSON.stringify(message),
            }));

            if (handler === undefined) {
              for (const message of messages) {
                const outcome = await platform.send(definition, message, {});
                expect(outcome.category).toBe('success');
              }
            } else {
              expect(await deliverBatch(handler, records)).toEqual([]);
            }

            expect(deadLetters.entries).toEqual([]);
            // Messages of one entity go in event order, so each is matched by its body.
            const sent = server.requests.slice(before);
            expect(sent).toHaveLength(messages.length);
            for (const message of messages) {
              const expected = specRequest(action, message, settings, API_KEY);
              const at = sent.findIndex((request) =>
                isDeepStrictEqual(request.body, expected.body),
              );
              expect(at, `a request with the body of ${JSON.stringify(message)}`).toBeGreaterThan(
                -1,
              );
              const [request] = sent.splice(at, 1);
              expect(request?.method).toBe('POST');
              expect(request?.path).toBe(expected.path);
              expect(governedHeaders(request?.headers ?? {})).toStrictEqual(expected.headers);
            }
            const published = results.events.slice(publishedBefore);
            if (isRead) {
              expect(published.map((event) => event.correlationId)).toEqual(
                messages.map((message, i) => message.correlationId ?? `m-${batch}-${i}`),
              );
            }
            // The key only ever travels in its header.
            expect(output.writes.slice(writesBefore).join('')).not.toContain(API_KEY);
            expect(JSON.stringify(published)).not.toContain(API_KEY);
          },
        ),
        { seed: SEED + 100 + index, numRuns: RUNS },
      );
    });
  },
);
