/**
 * The history the heavy-fault convergence property found (seed 20261125, run 11), replayed step
 * by step through the real handlers: a record's add and then its transfer both reached the
 * platform without an answer and were dead-lettered during an outage; an add older than the
 * transfer arrived after the outage, and then the dead letters were redriven. The record must
 * end once, in the transfer's campaign, with the newest data: the older add may not re-create
 * it in the campaign it left, and the redriven transfer must find out from the platform where
 * the record is rather than fail against the copy that add would leave behind.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ActionName } from '../../../lambdas/actions';
import { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { InMemoryApiKeySource } from '../../../testkit';
import {
  type CapturedOutput,
  captureOutput,
  failedIds,
  fakeContext,
  RecordingDeadLetters,
  sqsEvent,
  TENANT,
  type TestHandler,
  testHandler,
} from '../support/harness';
import { API_KEY, MAX_RECEIVE_COUNT } from './convergence-check';

const at = (minute: number): string => new Date(Date.UTC(2026, 10, 24, 8, minute)).toISOString();

const add = (name: string, minute: number) => ({
  correlationId: `add-${name}`,
  occurredAt: at(minute),
  campaignName: 'Leads',
  clientId: 'c-3',
  previewRecordData: [{ key: 'Name', value: name }],
});

const transfer = {
  correlationId: 'move',
  occurredAt: at(30),
  campaignName: 'Leads',
  clientId: 'c-3',
  transferToCampaign: 'Callbacks',
};

let sim: RunningSimulator | undefined;
let deadLetters: RecordingDeadLetters;
let handlers: Map<ActionName, TestHandler>;
let output: CapturedOutput | undefined;

/** The outcome code of each receive of each message, by correlation id, as the handlers logged it. */
const outcomesLogged = (): Map<string, string[]> => {
  const codes = new Map<string, string[]>();
  for (const line of (output?.writes ?? []).join('').split('\n')) {
    if (!line.includes('"messageId"')) continue;
    const entry = JSON.parse(line) as { correlationId?: string; code?: string };
    if (entry.correlationId === undefined || entry.code === undefined) continue;
    codes.set(entry.correlationId, [...(codes.get(entry.correlationId) ?? []), entry.code]);
  }
  return codes;
};

const platform = (): RunningSimulator => {
  if (!sim) throw new Error('simulator not started');
  return sim;
};

const handler = (action: ActionName): TestHandler => {
  const found = handlers.get(action);
  if (!found) throw new Error(`no handler for ${action}`);
  return found;
};

/** One message on its last receive: a failure is dead-lettered by the handler itself. */
const lastReceive = (action: ActionName, message: object, id: string) =>
  handler(action)(
    sqsEvent([{ messageId: id, body: JSON.stringify(message), receiveCount: MAX_RECEIVE_COUNT }]),
    fakeContext(),
  );

beforeAll(async () => {
  sim = await startSimulator({ ...TENANT, apiKey: API_KEY, seed: 7 });
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
    (
      ['add-or-update-campaign-record', 'transfer-campaign-record'] as const satisfies ActionName[]
    ).map((action) => [
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

describe('a transfer applied without an answer and dead-lettered during an outage', () => {
  it('ends with the record once, in the destination, holding the newest data, after an older add and the redrive', async () => {
    // Prepare: the add at 08:10 and the transfer at 08:30 both land, but every answer is lost,
    // so both are dead-lettered on their last receive (the ledger cannot know the record is in
    // Leads, nor that it left)
    platform().setFaults({ lostResponseRate: 1 });
    await lastReceive('add-or-update-campaign-record', add('v1', 10), 'add-v1');
    await lastReceive('transfer-campaign-record', transfer, 'move');
    expect(platform().state.findByClientId('Callbacks', 'c-3')).toBeDefined();
    expect(deadLetters.entries.map((letter) => letter.reason.action)).toEqual([
      'add-or-update-campaign-record',
      'transfer-campaign-record',
    ]);
    platform().setFaults({});

    // Act: the platform is back; an add from 08:20 (older than the transfer) arrives, the
    // operator redrives both dead letters, and SQS redelivers what failed after its backoff
    const letters = deadLetters.entries.splice(0);
    const bodyOf = (action: ActionName) =>
      letters.find((letter) => letter.reason.action === action)?.body ?? '';
    const upserts = [
      { messageId: 'add-v2', body: JSON.stringify(add('v2', 20)) },
      { messageId: 'redriven-add-v1', body: bodyOf('add-or-update-campaign-record') },
    ];
    const upsert = handler('add-or-update-campaign-record');
    const firstUpserts = await upsert(sqsEvent(upserts), fakeContext());
    const moved = await handler('transfer-campaign-record')(
      sqsEvent([{ messageId: 'redriven-move', body: bodyOf('transfer-campaign-record') }]),
      fakeContext(),
    );
    const secondUpserts = await upsert(
      sqsEvent(upserts.map((record) => ({ ...record, receiveCount: 2 }))),
      fakeContext(),
    );

    // Assess: the adds waited for the transfer instead of re-creating the record in Leads; the
    // transfer found the record moved by its own unanswered attempt; then the adds followed it
    expect(failedIds(firstUpserts)).toEqual(['add-v2', 'redriven-add-v1']);
    expect(failedIds(moved)).toEqual([]);
    expect(failedIds(secondUpserts)).toEqual([]);
    const outcomes = outcomesLogged();
    expect(outcomes.get('add-v2')).toEqual(['WAITING_FOR_MOVE', 'SUCCESS']);
    expect(outcomes.get('move')).toEqual(['NETWORK_ERROR', 'ALREADY_TRANSFERRED']);
    expect(deadLetters.entries.map((letter) => letter.reason.errorCode)).toEqual([]);
    expect(platform().state.findByClientId('Leads', 'c-3')).toBeUndefined();
    expect(
      platform()
        .state.findByClientId('Callbacks', 'c-3')
        ?.previewRecordData.map((item) => item.value),
    ).toContain('v2');
  });
});
