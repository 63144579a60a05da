/**
 * Property-based: mutated messages of every action (wrong types, missing and extra fields,
 * Unicode lookalikes, over-long strings, 256 KiB bodies, invalid JSON, `__proto__` /
 * `constructor` keys, numbers as strings, bad enums, bad displayOrder, dates out of range) sent
 * as SQS batches through the real handler never crash it, never reach the platform (the
 * simulator sees no request) and always land in the DLQ with INVALID_MESSAGE / INVALID_JSON and
 * a reason naming the field.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAMES } from '../../lambdas/actions';
import { type RunningSimulator, startSimulator } from '../../local/simulator';
import { InMemoryApiKeySource } from '../../testkit';
import { propertySeed } from '../support/size-from-env';
import {
  type CapturedOutput,
  captureOutput,
  deliverBatch,
  RecordingDeadLetters,
  RecordingResults,
  TENANT,
  testHandler,
} from './support/harness';
import { type MutatedBody, mutatedBody } from './support/mutations';

const RUNS = 300;
const SEED = propertySeed(20_260_702);
const API_KEY = 'fuzz-invalid-api-key-8b2e61';
const MAX_RECEIVE_COUNT = 3;

let simulator: RunningSimulator;
let output: CapturedOutput;
const kindCounts: Record<string, number> = {};
let cases = 0;
let bodies = 0;

beforeAll(async () => {
  simulator = await startSimulator({ ...TENANT, apiKey: API_KEY });
  output = captureOutput();
});

afterAll(async () => {
  output?.stop();
  await simulator?.close();
  console.log(
    `fuzz-invalid-messages: ${cases} cases, ${bodies} bodies; by mutation: ${JSON.stringify(kindCounts)}`,
  );
});

const isPolluted = (): boolean => {
  const probe: Record<string, unknown> = {};
  return probe.polluted !== undefined || probe.isAdmin !== undefined;
};

describe.each(ACTION_NAMES.map((action, index) => ({ action, index })))(
  'mutated $action messages',
  ({ action, index }) => {
    it('never crash the handler, never reach the platform, and are dead-lettered naming the field', async () => {
      // Prepare
      const deadLetters = new RecordingDeadLetters();
      const handler = testHandler(action, {
        baseUrl: simulator.baseUrl,
        apiKey: new InMemoryApiKeySource(API_KEY),
        deadLetters,
        results: new RecordingResults(),
        maxReceiveCount: MAX_RECEIVE_COUNT,
      });
      let batch = 0;

      // Act / Assess
      await fc.assert(
        fc.asyncProperty(
          fc.array(mutatedBody(action), { minLength: 1, maxLength: 3 }),
          fc.integer({ min: 1, max: MAX_RECEIVE_COUNT }),
          async (mutated: MutatedBody[], receiveCount) => {
            cases += 1;
            batch += 1;
            deadLetters.entries.length = 0;
            const requestsBefore = simulator.stats.requests;
            const writesBefore = output.writes.length;
            const records = mutated.map((m, i) => ({
              messageId: `bad-${batch}-${i}`,
              body: m.body,
              receiveCount,
            }));
            for (const m of mutated) {
              bodies += 1;
              kindCounts[m.kind] = (kindCounts[m.kind] ?? 0) + 1;
            }

            const failed = await deliverBatch(handler, records);

            // Permanent failures are not redelivered: the batch reports no failed item.
            expect(failed).toEqual([]);
            expect(simulator.stats.requests).toBe(requestsBefore);
            expect(isPolluted()).toBe(false);
            expect(deadLetters.entries).toHaveLength(mutated.length);
            for (const [i, m] of mutated.entries()) {
              const letter = deadLetters.entries.find(
                (entry) => entry.reason.sourceMessageId === `bad-${batch}-${i}`,
              );
              expect(letter?.body).toBe(m.body);
              expect(letter?.reason).toMatchObject({
                action,
                errorCategory: 'permanent',
                errorCode: m.errorCode,
              });
              for (const mention of m.mentions) {
                expect(letter?.reason.errorMessage, `${m.kind}: ${mention}`).toContain(mention);
              }
              expect(JSON.stringify(letter?.reason)).not.toContain(API_KEY);
            }
            expect(output.writes.slice(writesBefore).join('')).not.toContain(API_KEY);
          },
        ),
        { seed: SEED + index, numRuns: RUNS },
      );
    });
  },
);
