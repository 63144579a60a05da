/**
 * Where a bad message ends: every input the contract rejects leaves with a reason, dead-lettered
 * when it came from a queue or EventBridge, answered to the caller when invoked directly. No
 * platform call is made for any of them (the clients point at a port nothing listens on).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { deleteUser } from '../../../lambdas/actions/delete-user';
import { queryUserExistence } from '../../../lambdas/actions/query-user-existence';
import type { DeadLetterReason, DeadLetterSink } from '../../../lambdas/core/entry/ports';
import { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import type { Disposition } from '../../../lambdas/core/pipeline/disposition';
import {
  type InboundMessage,
  processMessage,
} from '../../../lambdas/core/pipeline/message-pipeline';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import { user } from '../../../lambdas/entities/user';
import { InMemoryApiKeySource } from '../../../testkit';
import { settingsFor, TEST_KEY } from './client-fixtures';

class RecordingDeadLetters implements DeadLetterSink {
  readonly sent: { body: string; reason: DeadLetterReason }[] = [];
  failWith: Error | undefined;

  async send(body: string, reason: DeadLetterReason): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.sent.push({ body, reason });
  }
}

const setup = () => {
  const deadLetters = new RecordingDeadLetters();
  const observations: Disposition[] = [];
  const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
  const warn = vi.spyOn(logger, 'warn');
  const error = vi.spyOn(logger, 'error');
  const deps = {
    platform: new PlatformCaller(
      settingsFor('http://127.0.0.1:9'),
      new InMemoryApiKeySource(TEST_KEY),
    ),
    deadLetters,
    logger,
    metrics: new Metrics({ namespace: 'Test', serviceName: 'test' }),
    ledger: { ledger: new EntityLedger({ store: new InMemoryLedgerStore() }), entity: user },
    observer: { disposition: (disposition: Disposition) => observations.push(disposition) },
  };
  const loggedMessages = (spy: typeof warn) => spy.mock.calls.map(([message]) => message);
  return {
    deps,
    deadLetters,
    observations,
    warnings: () => loggedMessages(warn),
    errors: () => loggedMessages(error),
    errorCalls: () => error.mock.calls,
  };
};

const inbound = (body: string, overrides: Partial<InboundMessage> = {}): InboundMessage => ({
  body,
  sourceMessageId: 'm-1',
  receiveCount: 1,
  isLastReceive: false,
  deadline: Date.now() + 60_000,
  answersCaller: false,
  ...overrides,
});

describe('processMessage with a message the contract rejects', () => {
  it.each([
    ['a body that is not JSON', '{"loginUserId": ', 'INVALID_JSON', 'not valid JSON'],
    ['a body missing a field', '{}', 'INVALID_MESSAGE', 'loginUserId: is required'],
    [
      'an event for another action',
      JSON.stringify({ 'detail-type': 'add-user', detail: { loginUserId: 'a' }, id: 'e-1' }),
      'WRONG_DETAIL_TYPE',
      'this is the delete-user handler',
    ],
  ])('dead-letters %s unchanged, with the reason', async (_name, body, code, reasonPart) => {
    // Prepare
    const run = setup();

    // Act
    const disposition = await processMessage(deleteUser, inbound(body), run.deps);

    // Assess
    expect(disposition).toMatchObject({
      kind: 'dead-lettered',
      outcome: { category: 'permanent', code },
    });
    expect(run.deadLetters.sent).toHaveLength(1);
    expect(run.deadLetters.sent[0]?.body).toBe(body);
    expect(run.deadLetters.sent[0]?.reason).toMatchObject({
      action: 'delete-user',
      errorCategory: 'permanent',
      errorCode: code,
      sourceMessageId: 'm-1',
    });
    expect(run.deadLetters.sent[0]?.reason.errorMessage).toContain(reasonPart);
    expect(run.observations.map((o) => o.kind)).toEqual(['dead-lettered']);
  });

  it('answers a direct caller with the reason and dead-letters nothing', async () => {
    // Prepare
    const run = setup();

    // Act
    const disposition = await processMessage(
      queryUserExistence,
      inbound('{}', { decoded: {}, answersCaller: true }),
      run.deps,
    );

    // Assess
    expect(disposition).toMatchObject({
      kind: 'rejected',
      correlationId: 'm-1',
      outcome: { category: 'permanent', code: 'INVALID_MESSAGE' },
    });
    expect(disposition.outcome.message).toContain('loginUserId: is required');
    expect(run.deadLetters.sent).toEqual([]);
    expect(run.observations.map((o) => o.kind)).toEqual(['rejected']);
    expect(run.warnings()).toEqual(['message rejected to the caller']);
    expect(run.errors()).toEqual([]);
  });

  it('throws for redelivery, saying why, when the dead-letter send fails', async () => {
    // Prepare
    const run = setup();
    run.deadLetters.failWith = new Error('SQS unavailable');

    // Act
    const processing = processMessage(deleteUser, inbound('{}'), run.deps);

    // Assess
    await expect(processing).rejects.toThrow('SQS unavailable');
    expect(run.errors()).toEqual(['message not dead-lettered']);
    expect(run.observations.map((o) => o.kind)).toEqual(['retry']);
  });
});

describe('processMessage when something other than the message fails', () => {
  it('dead-letters an unexpected error naming only its kind, and logs where it was thrown without its text', async () => {
    // Prepare: a fault whose text quotes personal data, on the message's last receive.
    const run = setup();
    const fault = new TypeError('cannot read ada.lovelace@example.com');
    const throwing = {
      ...queryUserExistence,
      execute: async () => {
        throw fault;
      },
    };
    const body = JSON.stringify({ loginUserId: 'ada.lovelace@example.com' });

    // Act
    const disposition = await processMessage(
      throwing,
      inbound(body, { isLastReceive: true }),
      run.deps,
    );

    // Assess
    const reason = run.deadLetters.sent[0]?.reason;
    expect(disposition).toMatchObject({
      kind: 'dead-lettered',
      outcome: { category: 'retryable', code: 'UNEXPECTED_ERROR' },
    });
    expect(reason?.errorCode).toBe('UNEXPECTED_ERROR');
    expect(reason?.errorMessage).toContain('TypeError');
    expect(reason?.errorMessage).not.toContain('ada.lovelace');
    expect(disposition.outcome.message).not.toContain('ada.lovelace');
    expect(run.errorCalls()).toContainEqual([
      'unexpected error',
      expect.objectContaining({
        correlationId: 'm-1',
        errorKind: 'TypeError',
        stack: expect.stringContaining('process-message.test.ts'),
      }),
    ]);
    expect(JSON.stringify(run.errorCalls())).not.toContain('ada.lovelace');
  });

  it('dead-letters a message whose entity has a ledger item that does not parse, at once', async () => {
    // Prepare: the user's item is of this schema version, but its events are not a list.
    const run = setup();
    const store = new InMemoryLedgerStore();
    const key = user.keyOf({ loginUserId: 'ada@example.com' });
    await store.claim(key, { token: 't', until: 0, eventKey: 'seed' }, 0);
    await store.commit(key, 't', {
      schema: user.parts.schema,
      kind: 'user',
      id: { loginUserId: 'ada@example.com' },
      events: 'not a list',
      known: {},
    });
    const deps = { ...run.deps, ledger: { ledger: new EntityLedger({ store }), entity: user } };

    // Act: its first receive.
    const disposition = await processMessage(
      deleteUser,
      inbound(JSON.stringify({ loginUserId: 'ada@example.com' })),
      deps,
    );

    // Assess
    expect(disposition).toMatchObject({
      kind: 'dead-lettered',
      outcome: { category: 'permanent', code: 'LEDGER_ITEM_INVALID' },
    });
    expect(run.deadLetters.sent[0]?.reason).toMatchObject({
      errorCategory: 'permanent',
      errorCode: 'LEDGER_ITEM_INVALID',
    });
    expect(run.deadLetters.sent[0]?.reason.errorMessage).toContain('item.events');
    expect(store.requests.release).toBe(1);
  });
});
