/**
 * The ordering rules the convergence suite found missing, one scenario each: what the ledger
 * decides when a move or a create may have happened without an answer, when events arrive around
 * a move, and when a delete is older than a move. Each names the decision it expects, so a change
 * to one rule shows here before it shows as a diverged entity in the end-to-end suite.
 */
import { describe, expect, it } from 'vitest';
import { type Applied, type Decision, decide, settle } from '../../../lambdas/core/ledger/decide';
import {
  EMPTY_ENTITY,
  type EntityDoc,
  type FieldValue,
  type OrderedEvent,
} from '../../../lambdas/core/ledger/entity';
import type { EventKind } from '../../../lambdas/core/ledger/event-version';
import { appliedBy } from '../../../lambdas/core/ledger/step-result';
import type { Outcome } from '../../../lambdas/core/outcome';
import { orderedEvent } from './ordered-event';

const DESTINATION = 'record#destination';

const event = (
  kind: EventKind,
  minute: number,
  sets: Readonly<Record<string, FieldValue>> = {},
  extra: Partial<OrderedEvent> = {},
): OrderedEvent => {
  const hash = `${kind}${minute}`.padEnd(16, '0');
  return {
    ...orderedEvent(kind, Date.UTC(2026, 10, 24, 8, minute), hash, sets),
    ...(kind === 'move'
      ? { destination: DESTINATION, destinationAddress: { campaignName: 'Callbacks' } }
      : {}),
    ...extra,
  };
};

/** The ledger of one entity after `steps`, each decided and settled as the platform answered. */
const settledThrough = (
  steps: readonly { readonly event: OrderedEvent; readonly applied: Applied }[],
): { source: EntityDoc; destination: EntityDoc } => {
  let source = EMPTY_ENTITY;
  let destination = EMPTY_ENTITY;
  for (const step of steps) {
    const decision = decide(source, step.event);
    const settled = settle(source, step.event, decision, step.applied, destination);
    source = settled.doc;
    if (settled.destination) destination = settled.destination;
  }
  return { source, destination };
};

const applied: Applied = { kind: 'applied' };
const unanswered: Applied = { kind: 'uncertain' };

const add = event('create', 1, { data: 'h1', agent: 'a' });
const move = event('move', 10, { skillQueue: 'Sales' });

describe('a move whose answer was lost', () => {
  // Prepare: the record is known to be at the source; the move went unanswered
  const { source, destination } = settledThrough([
    { event: add, applied },
    { event: move, applied: unanswered },
  ]);

  it.each<[string, EntityDoc, OrderedEvent, Partial<Decision>]>([
    [
      'an older change at the source waits for the move to settle',
      source,
      event('change', 5, { state: 'WORKED' }),
      { kind: 'wait', code: 'WAITING_FOR_MOVE' },
    ],
    [
      'an older change sent to the destination waits too',
      destination,
      event('change', 5, { state: 'WORKED' }),
      { kind: 'wait', code: 'WAITING_FOR_MOVE' },
    ],
    [
      'a newer change at the destination goes ahead',
      destination,
      event('change', 12, { state: 'WORKED' }),
      { kind: 'apply' },
    ],
  ])('%s', (_name, doc, late, expected) => {
    // Act
    const decision = decide(doc, late);

    // Assess
    expect(decision).toMatchObject(expected);
  });

  it('holds back an older add when an unanswered add of ours may have put the record there', () => {
    // Prepare: the add and then the move went unanswered; both may have landed
    const { source: doubtful } = settledThrough([
      { event: add, applied: unanswered },
      { event: move, applied: unanswered },
    ]);

    // Act: another add older than the move, applied at the source, would re-create a record that left
    const decision = decide(doubtful, event('create', 5, { data: 'h5' }));

    // Assess
    expect(decision).toMatchObject({ kind: 'wait', code: 'WAITING_FOR_MOVE' });
  });

  it('lets the add the move needs go ahead once its retry finds the record in neither place', () => {
    // Prepare: the move was tried before any add; its retry found nothing to move
    const { source: early, destination: target } = settledThrough([
      { event: move, applied: unanswered },
      { event: move, applied: { kind: 'notMoved' } },
    ]);

    // Act
    const decision = decide(early, add);

    // Assess: the doubt is settled at both ends, and the move's attempt is no longer one that may have landed
    expect(decision).toMatchObject({ kind: 'apply' });
    expect(early.moving).toBeUndefined();
    expect(early.uncertain).not.toContain(move.attemptKey);
    expect(target.incoming).toBeUndefined();
  });

  it('leaves no doubt when the record is known gone from the source', () => {
    // Prepare: deleted, then the move went unanswered
    const { source: gone } = settledThrough([
      { event: add, applied },
      { event: event('delete', 5), applied: { kind: 'absent' } },
      { event: move, applied: unanswered },
    ]);

    // Assess
    expect(gone.moving).toBeUndefined();
  });

  it('holds back a delete at the destination that a later add would make stale, until the move settles', () => {
    // Prepare: the move may have brought the record; an add there after the delete then applied
    const { destination: doubtful } = settledThrough([
      { event: add, applied: unanswered },
      { event: move, applied: unanswered },
    ]);
    const readd = event('create', 20, { data: 'h20' });
    const target = settle(doubtful, readd, decide(doubtful, readd), applied).doc;

    // Act: skipped, the delete would leave what the move brought (the add only updated it)
    const decision = decide(target, event('delete', 15));

    // Assess
    expect(decision).toMatchObject({ kind: 'wait', code: 'WAITING_FOR_MOVE' });
  });

  it('clears the doubt at the destination once the move ends with the record deleted there', () => {
    // Prepare
    const { source: gone, destination: target } = settledThrough([
      { event: add, applied },
      { event: move, applied: unanswered },
      { event: move, applied: { kind: 'absent' } },
    ]);

    // Assess
    expect(gone.moving).toBeUndefined();
    expect(target.incoming).toBeUndefined();
  });

  it('clears the doubt once the move is applied', () => {
    // Prepare
    const { source: settledSource, destination: settledDestination } = settledThrough([
      { event: add, applied },
      { event: move, applied: unanswered },
      { event: move, applied },
    ]);

    // Assess
    expect(settledSource.moving).toBeUndefined();
    expect(settledSource.movedTo).toMatchObject({ location: DESTINATION });
    expect(settledDestination.incoming).toBeUndefined();
    expect(settledDestination.arrivedAt).toBe(move.version);
  });
});

describe('a move whose call moved the record unanswered and was then answered FAILED', () => {
  // The main convergence property, seed 20261124, run 219: the transfer's first attempt moved
  // the record but its answer was lost, the call's retry was answered FAILED. The outcome is a
  // plain failure, but the call is in doubt: the ledger must keep the move's doubt.
  const failedAfterDoubt: Outcome = {
    category: 'retryable',
    code: 'FAILED',
    message: 'transferCampaignRecord: FAILED',
    httpStatus: 200,
    attempts: 2,
    afterDoubt: true,
  };
  const removed = event('change', 5, { state: 'REMOVED', skillQueue: 'Sales' });

  it('settles the move as uncertain, so an older REMOVED status waits for its retry', () => {
    // Prepare
    const { source } = settledThrough([
      { event: add, applied },
      { event: move, applied: appliedBy(failedAfterDoubt) },
    ]);

    // Act
    const decision = decide(source, removed);

    // Assess
    expect(appliedBy(failedAfterDoubt)).toEqual({ kind: 'uncertain' });
    expect(source.moving).toBe(move.version);
    expect(decision).toMatchObject({ kind: 'wait', code: 'WAITING_FOR_MOVE' });
  });

  it('lets the retry own the move, and the REMOVED status then follows the record', () => {
    // Prepare: the retry finds the record gone from the source and in the destination
    const { source: doubtful } = settledThrough([
      { event: add, applied },
      { event: move, applied: appliedBy(failedAfterDoubt) },
    ]);
    const retry = decide(doubtful, move);
    const { source, destination } = settledThrough([
      { event: add, applied },
      { event: move, applied: appliedBy(failedAfterDoubt) },
      { event: move, applied },
    ]);

    // Act
    const followed = decide(source, removed);
    const there = decide(destination, removed, { forwarded: true, followedMoveAt: move.version });

    // Assess: the retry knows its earlier attempt may have moved the record (ALREADY_TRANSFERRED)
    expect(retry).toMatchObject({ kind: 'apply', entity: 'present', ourEarlierAttempt: true });
    expect(followed).toMatchObject({ kind: 'forward', location: DESTINATION });
    expect(there).toMatchObject({ kind: 'apply', fresh: ['state'], stale: ['skillQueue'] });
  });

  it('keeps a failure without an unanswered attempt before it as unchanged', () => {
    // Act
    const plain = appliedBy({ ...failedAfterDoubt, afterDoubt: false, attempts: 1 });

    // Assess
    expect(plain).toEqual({ kind: 'unchanged' });
  });
});

describe('events around a move that was applied', () => {
  // Prepare
  const { source, destination } = settledThrough([
    { event: add, applied },
    { event: move, applied },
  ]);

  it.each<[string, EntityDoc, OrderedEvent, Partial<Decision>]>([
    [
      'an older change at the source follows the record',
      source,
      event('change', 5, { state: 'WORKED' }),
      { kind: 'forward', location: DESTINATION },
    ],
    [
      'an older delete at the source follows the record too (it deleted the record that moved)',
      source,
      event('delete', 5),
      { kind: 'forward', location: DESTINATION },
    ],
    [
      'a change sent to the destination from before the move found nothing there',
      destination,
      event('change', 5, { state: 'WORKED' }),
      { kind: 'skip', code: 'STALE_SKIPPED' },
    ],
  ])('%s', (_name, doc, late, expected) => {
    // Act
    const decision = decide(doc, late);

    // Assess
    expect(decision).toMatchObject(expected);
  });

  it('applies a forwarded older event where the record is', () => {
    // Act
    const decision = decide(destination, event('change', 5, { state: 'WORKED' }), {
      forwarded: true,
      followedMoveAt: move.version,
    });

    // Assess
    expect(decision).toMatchObject({ kind: 'apply', fresh: ['state'] });
  });

  it('only sets the fields of an older move that follows the record, without moving it', () => {
    // Act
    const decision = decide(destination, event('move', 5, { skillQueue: 'Retention' }), {
      forwarded: true,
      followedMoveAt: move.version,
    });

    // Assess: skillQueue was set by the newer move already, so nothing is left to send
    expect(decision).toMatchObject({ kind: 'skip', code: 'STALE_SKIPPED' });
  });

  it('carries the record history: an event older than its last delete is stale at the destination', () => {
    // Prepare: deleted at minute 3, added again at 4, then moved
    const { destination: moved } = settledThrough([
      { event: event('delete', 3), applied: { kind: 'absent' } },
      { event: event('create', 4, { data: 'h4' }), applied },
      { event: move, applied },
    ]);

    // Act
    const decision = decide(moved, event('create', 2, { data: 'h2', agent: 'b' }), {
      forwarded: true,
      followedMoveAt: move.version,
    });

    // Assess
    expect(decision).toMatchObject({ kind: 'skip', code: 'STALE_SKIPPED' });
  });
});

describe('a create after an unanswered create', () => {
  it('records both creates, so a delete between them re-creates the record', () => {
    // Prepare: the add at minute 1 went unanswered (it may have landed); the add at 20 applied
    const { source } = settledThrough([
      { event: add, applied: unanswered },
      { event: event('create', 20, { data: 'h20' }), applied },
    ]);

    // Act: the delete at minute 15 arrives last
    const decision = decide(source, event('delete', 15));

    // Assess
    expect(source.creates).toHaveLength(2);
    expect(decision).toMatchObject({ kind: 'apply', recreate: { keep: { data: 'h20' } } });
  });

  it('skips the unanswered create as stale when later events set all its fields', () => {
    // Prepare
    const { source } = settledThrough([
      { event: event('create', 1, { data: 'h1' }), applied: unanswered },
      { event: event('create', 20, { data: 'h20' }), applied },
    ]);

    // Act: the first add is redelivered
    const decision = decide(source, event('create', 1, { data: 'h1' }));

    // Assess
    expect(decision).toMatchObject({ kind: 'skip', code: 'STALE_SKIPPED' });
  });

  it('restores what waited in limbo when an unanswered create is retried after a change found the record', () => {
    // Prepare: the status at 12 waits in limbo after the late delete at 4; the add at 6 went
    // unanswered, and a change at 8 then found the record
    const { source } = settledThrough([
      { event: add, applied },
      { event: event('change', 12, { state: 'COMPLETED' }), applied },
      { event: event('delete', 4), applied: { kind: 'absent' } },
      { event: event('create', 6, { data: 'h6' }), applied: unanswered },
      { event: event('change', 8, { state: 'WORKED' }), applied },
    ]);

    // Act: the add at 6 is redelivered
    const decision = decide(source, event('create', 6, { data: 'h6' }));

    // Assess: in the model the status at 12 came after the add and the change at 8
    expect(decision).toMatchObject({ kind: 'apply', restore: { state: 'COMPLETED' } });
  });

  it('counts an unanswered create as the first one after an older delete, before an answered later one', () => {
    // Prepare: the add at minute 4 went unanswered, a change at 9 found the record, an add at
    // 12 was answered; in the model the add at 4 made the record and the change at 9 stays
    const { source } = settledThrough([
      { event: event('create', 4, { data: 'h4' }), applied: unanswered },
      { event: event('change', 9, { state: 'WORKED' }), applied },
      { event: event('create', 12, { data: 'h12' }), applied },
    ]);

    // Act
    const decision = decide(source, event('delete', 1));

    // Assess: not re-created with only what the add at 12 set (the change at 9 would go)
    expect(source.creates).toEqual([event('create', 12).version]);
    expect(decision).toMatchObject({ kind: 'skip', code: 'STALE_SKIPPED' });
  });

  it('re-creates on a delete after an older unanswered create, which may have set fields on the record', () => {
    // Prepare: the add at minute 20 made the record; an add from minute 1 then went unanswered
    // (applied as an update, it may have set its agent there)
    const { source } = settledThrough([
      { event: event('create', 20, { data: 'h20' }), applied },
      { event: event('create', 1, { data: 'h1', agent: 'b' }), applied: unanswered },
    ]);

    // Act: a delete from minute 10 arrives; in the model it removed what the add at 1 set
    const decision = decide(source, event('delete', 10));

    // Assess
    expect(source).toMatchObject({ bornAt: event('create', 1).version });
    expect(decision).toMatchObject({ kind: 'apply', recreate: { keep: { data: 'h20' } } });
  });

  it('does not let an older delete remove the record an unanswered create may have made', () => {
    // Prepare: the add at minute 20 went unanswered; a change at 25 then found the record, so
    // the ledger knows it present, but no create of it is known for certain
    const { source } = settledThrough([
      { event: event('create', 20, { data: 'h20' }), applied: unanswered },
      { event: event('change', 25, { state: 'WORKED' }), applied },
    ]);

    // Act: a delete from minute 10 arrives; in the model it came before the add made the record
    const decision = decide(source, event('delete', 10));

    // Assess
    expect(source).toMatchObject({ present: true, creates: [] });
    expect(decision).toMatchObject({ kind: 'skip', code: 'STALE_SKIPPED' });
  });
});
