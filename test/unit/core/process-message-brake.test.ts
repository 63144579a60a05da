/**
 * The mass-delete brake in the message pipeline: which messages it counts (the action module
 * says which are destructive), what a held message becomes (parked with its attributes, the
 * record done), and that a failure to park loses nothing. Platform calls go to a closed port
 * with a spent deadline: a message the brake lets through fails fast as retryable.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { addUser } from '../../../lambdas/actions/add-user';
import { changeCampaignRecordStatus } from '../../../lambdas/actions/change-campaign-record-status';
import { deleteCampaignRecord } from '../../../lambdas/actions/delete-campaign-record';
import { deleteUser } from '../../../lambdas/actions/delete-user';
import type { HeldMessage, HeldMessageSink } from '../../../lambdas/core/entry/ports';
import { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import type { AnyAction } from '../../../lambdas/core/pipeline/action';
import {
  type InboundMessage,
  processMessage,
} from '../../../lambdas/core/pipeline/message-pipeline';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import { InMemoryBrakeStore } from '../../../lambdas/core/resilience/in-memory-brake-store';
import { HELD_BY_BRAKE, MassDeleteBrake } from '../../../lambdas/core/resilience/mass-delete-brake';
import { orderedWith } from '../../../lambdas/entities';
import { InMemoryApiKeySource } from '../../../testkit';
import { settingsFor, TEST_KEY } from './client-fixtures';

class RecordingHeldQueue implements HeldMessageSink {
  readonly held: HeldMessage[] = [];
  failWith: Error | undefined;
  async hold(message: HeldMessage): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.held.push(message);
  }
}

const setup = (action: AnyAction, limit: number) => {
  const store = new InMemoryBrakeStore();
  const heldQueue = new RecordingHeldQueue();
  const metrics = new Metrics({ namespace: 'Test', serviceName: 'test' });
  const addMetric = vi.spyOn(metrics, 'addMetric');
  const deps = {
    platform: new PlatformCaller(
      settingsFor('http://127.0.0.1:9'),
      new InMemoryApiKeySource(TEST_KEY),
    ),
    deadLetters: { send: async () => {} },
    logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    metrics,
    ...orderedWith(action, new EntityLedger({ store: new InMemoryLedgerStore() })),
    brake: {
      gate: new MassDeleteBrake(action.name, store, { limit, windowMs: 3_600_000 }),
      held: heldQueue,
    },
  };
  const metricNames = () => addMetric.mock.calls.map(([name]) => name);
  return { deps, store, heldQueue, metricNames };
};

const inbound = (message: unknown, overrides: Partial<InboundMessage> = {}): InboundMessage => ({
  body: JSON.stringify(message),
  sourceMessageId: 'm-1',
  receiveCount: 1,
  isLastReceive: false,
  // Spent: a message let through fails at once instead of retrying against the closed port.
  deadline: Date.now(),
  answersCaller: false,
  ...overrides,
});

const record = { campaignName: 'Leads', clientId: 'C-1' };
const LIMIT = { limit: 1, windowMs: 3_600_000 };

const DESTRUCTIVE: readonly [string, AnyAction, unknown][] = [
  ['delete-user', deleteUser, { loginUserId: 'grace@example.com' }],
  ['delete-campaign-record', deleteCampaignRecord, record],
  [
    'change-campaign-record-status to REMOVED',
    changeCampaignRecordStatus,
    { ...record, previewRecordStateEnum: 'REMOVED' },
  ],
];

describe.each(DESTRUCTIVE)('the brake on %s', (_name, action, message) => {
  it('counts the limit through, then parks the next with its attributes (the record is done)', async () => {
    // Prepare
    const run = setup(action, 1);
    const attributes = { producer: { dataType: 'String', stringValue: 'crm-export-7' } };

    // Act
    const first = await processMessage(action, inbound(message), run.deps);
    const second = await processMessage(
      action,
      inbound(
        { ...(message as object), correlationId: 'bulk-2' },
        { sourceMessageId: 'm-2', attributes },
      ),
      run.deps,
    );

    // Assess
    expect(first.kind).not.toBe('held');
    expect(second).toMatchObject({
      kind: 'held',
      outcome: { category: 'success', code: HELD_BY_BRAKE },
    });
    expect(run.heldQueue.held).toEqual([
      expect.objectContaining({
        body: JSON.stringify({ ...(message as object), correlationId: 'bulk-2' }),
        correlationId: 'bulk-2',
        sourceMessageId: 'm-2',
        attributes,
        reason: expect.stringContaining('brake tripped'),
      }),
    ]);
    expect(run.metricNames()).toContain('DeletesHeld');
    expect((await run.store.read(action.name))?.trippedAt).toBeDefined();
  });

  it('lets a released message through uncounted, even while tripped', async () => {
    // Prepare
    const run = setup(action, 1);
    await run.store.trip(action.name, Date.now(), LIMIT);

    // Act
    const released = await processMessage(
      action,
      inbound(message, { brakeReleased: true }),
      run.deps,
    );

    // Assess
    expect(released.kind).not.toBe('held');
    expect(run.heldQueue.held).toEqual([]);
    expect((await run.store.read(action.name))?.used).toBe(0);
  });

  it('only checks a redelivery: not counted again, held once the brake has tripped', async () => {
    // Prepare
    const run = setup(action, 5);

    // Act
    const armed = await processMessage(action, inbound(message, { receiveCount: 2 }), run.deps);
    await run.store.trip(action.name, Date.now(), LIMIT);
    const tripped = await processMessage(action, inbound(message, { receiveCount: 3 }), run.deps);

    // Assess
    expect(armed.kind).not.toBe('held');
    expect(tripped.kind).toBe('held');
    expect((await run.store.read(action.name))?.used).toBe(0);
  });

  it('fails the record when it cannot be parked: redelivered and held then, never lost', async () => {
    // Prepare
    const run = setup(action, 1);
    await run.store.trip(action.name, Date.now(), LIMIT);
    run.heldQueue.failWith = new Error('SendMessage failed');

    // Act
    const failed = await processMessage(action, inbound(message), run.deps);
    run.heldQueue.failWith = undefined;
    const again = await processMessage(action, inbound(message, { receiveCount: 2 }), run.deps);

    // Assess
    expect(failed).toMatchObject({ kind: 'retry', outcome: { category: 'retryable' } });
    expect(again.kind).toBe('held');
    expect(run.heldQueue.held).toHaveLength(1);
  });
});

describe('the brake and messages that remove nothing', () => {
  it.each([
    [
      'change-campaign-record-status to COMPLETED',
      changeCampaignRecordStatus,
      { ...record, previewRecordStateEnum: 'COMPLETED' },
    ],
    [
      'add-user',
      addUser,
      { loginUserId: 'a@example.com', firstName: 'A', lastName: 'B', userTemplateName: 'agent' },
    ],
  ] as const)('%s never touches the count, tripped or not', async (_name, action, message) => {
    // Prepare
    const run = setup(action, 1);
    await run.store.trip(action.name, 1, LIMIT);

    // Act
    const disposition = await processMessage(action, inbound(message), run.deps);

    // Assess
    expect(disposition.kind).not.toBe('held');
    expect(await run.store.read(action.name)).toEqual({
      windowStart: 0,
      used: 0,
      previousUsed: 0,
      trippedAt: 1,
      ...LIMIT,
    });
    expect(run.heldQueue.held).toEqual([]);
  });
});
