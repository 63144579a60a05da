import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { ActionName } from '../../../lambdas/actions';
import { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { InMemoryApiKeySource } from '../../../testkit';
import {
  type CapturedOutput,
  captureOutput,
  fakeContext,
  RecordingDeadLetters,
  sqsEvent,
  TENANT,
  type TestHandler,
  testHandler,
} from '../support/harness';
import { API_KEY, MAX_RECEIVE_COUNT } from './convergence-check';

/**
 * Where a history a convergence property found is replayed step by step: the real handlers of
 * `actions`, sharing one in-memory ledger and one simulator (its fault draws seeded by `seed`),
 * made afresh for each test with their log captured. Registers the file's hooks.
 */
export const replayedHandlers = (actions: readonly ActionName[], seed: number) => {
  let sim: RunningSimulator | undefined;
  let deadLetters = new RecordingDeadLetters();
  let handlers = new Map<ActionName, TestHandler>();
  let output: CapturedOutput | undefined;

  const platform = (): RunningSimulator => {
    if (!sim) throw new Error('simulator not started');
    return sim;
  };

  const handler = (action: ActionName): TestHandler => {
    const found = handlers.get(action);
    if (!found) throw new Error(`no handler for ${action}`);
    return found;
  };

  beforeAll(async () => {
    sim = await startSimulator({ ...TENANT, apiKey: API_KEY, seed });
  });

  afterAll(async () => {
    await sim?.close();
  });

  afterEach(() => {
    output?.stop();
  });

  beforeEach(() => {
    platform().reset();
    platform().setFaults({});
    output = captureOutput();
    deadLetters = new RecordingDeadLetters();
    const ledger = new EntityLedger({ store: new InMemoryLedgerStore() });
    handlers = new Map(
      actions.map((action) => [
        action,
        testHandler(action, {
          baseUrl: platform().baseUrl,
          apiKey: new InMemoryApiKeySource(API_KEY),
          deadLetters,
          ledger,
          maxReceiveCount: MAX_RECEIVE_COUNT,
        }),
      ]),
    );
  });

  return {
    platform,
    handler,
    /** What the handlers dead-lettered in this test. */
    deadLetters: (): RecordingDeadLetters => deadLetters,
    /** One message, on its `receiveCount`th receive. */
    deliver: (action: ActionName, message: object, id: string, receiveCount = 1) =>
      handler(action)(
        sqsEvent([{ messageId: id, body: JSON.stringify(message), receiveCount }]),
        fakeContext(),
      ),
    /** The outcome code of each receive of each message, by correlation id, as the handlers logged it. */
    outcomesLogged: (): Map<string, string[]> => {
      const codes = new Map<string, string[]>();
      for (const line of (output?.writes ?? []).join('').split('\n')) {
        if (!line.includes('"messageId"')) continue;
        const entry = JSON.parse(line) as { correlationId?: string; code?: string };
        if (entry.correlationId === undefined || entry.code === undefined) continue;
        codes.set(entry.correlationId, [...(codes.get(entry.correlationId) ?? []), entry.code]);
      }
      return codes;
    },
  };
};
