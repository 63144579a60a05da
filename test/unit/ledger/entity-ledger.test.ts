/**
 * The entity ledger's mechanism (lease, events, replay, plan, commit) on histories that the
 * ordering properties reach only by chance: a refusal found on the platform and then fixed by an
 * operator. The user kind runs its real platform steps against the simulator.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changeCampaignRecordStatus } from '../../../lambdas/actions/change-campaign-record-status';
import type { AnyEntityKind } from '../../../lambdas/core/ledger/entity-kind';
import { EntityLedger, type NewEvent, newEvent } from '../../../lambdas/core/ledger/entity-ledger';
import { type EventRank, versionOf } from '../../../lambdas/core/ledger/event-version';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { parseLedgerDoc } from '../../../lambdas/core/ledger/ledger-doc';
import { recordFamily } from '../../../lambdas/entities/record-family';
import type { RecordOp } from '../../../lambdas/entities/record-family/model';
import { user } from '../../../lambdas/entities/user';
import type { UserOp } from '../../../lambdas/entities/user/model';
import type { UserStep } from '../../../lambdas/entities/user/steps';
import { propertySeed } from '../../support/size-from-env';
import { clientAgainstTestSimulator } from '../core/client-fixtures';

const LOGIN = 'ada@example.com';
const ADA = { firstName: 'Ada', lastName: 'L', userTemplateName: 'Agent' };

/** The n-th event of the user: versions sort as `n` does. */
const userEvent = (n: number, op: UserOp): NewEvent => {
  const action = op.kind === 'add' ? 'add-user' : 'delete-user';
  const v = String(n).padStart(3, '0');
  return newEvent(action, v, op);
};

const addAt = (n: number) => userEvent(n, { kind: 'add', user: ADA });
const deleteAt = (n: number) => userEvent(n, { kind: 'delete' });

const { sim, platform } = clientAgainstTestSimulator({}, { maxAttempts: 1 });

const DAY_MS = 86_400_000;
const TOMBSTONE_DAYS = 15;

/** A ledger of one user, on a clock the test moves (`clock.now`). */
const ledgerFor = (store = new InMemoryLedgerStore(), maxItemBytes?: number) => {
  const clock = { now: Date.UTC(2026, 10, 24, 8) };
  const ledger = new EntityLedger({
    store,
    tombstoneDays: TOMBSTONE_DAYS,
    ...(maxItemBytes === undefined ? {} : { maxItemBytes }),
    now: () => clock.now,
    sleep: async () => {},
  });
  const apply = (event: NewEvent, kind: AnyEntityKind = user) =>
    ledger.apply(kind, {
      id: { loginUserId: LOGIN },
      event,
      platform,
      call: { deadline: Date.now() + 30_000 },
      deadline: Date.now() + 30_000,
    });
  const item = async () => {
    const doc = parseLedgerDoc(
      await store.read(user.keyOf({ loginUserId: LOGIN })),
      'user',
      user.parts,
    );
    if (doc === undefined) throw new Error('no ledger item');
    return doc;
  };
  return { apply, clock, item };
};

describe('the ledger on a user someone else made', () => {
  it('applies a redriven add once the operator removed the other user', async () => {
    // Prepare: the ledger made and removed the user; someone then made one with the same login,
    // so the next add was refused on the platform (not foreseen by the replay).
    const { apply } = ledgerFor();
    await apply(addAt(1));
    await apply(deleteAt(2));
    sim.state.addUser({ loginUserId: LOGIN, ...ADA, firstName: 'Someone' });
    const refused = await apply(addAt(3));
    sim.state.deleteUser(LOGIN);

    // Act: the operator redrives the dead letter.
    const redriven = await apply(addAt(3));

    // Assess
    expect(refused.code).toBe('USER_EXISTS_NOT_OURS');
    expect(redriven).toMatchObject({ category: 'success', code: 'SUCCESS' });
    expect(sim.state.findUser(LOGIN)?.firstName).toBe('Ada');
  });

  it('refuses the redrive again while the other user is still there', async () => {
    // Prepare
    const { apply } = ledgerFor();
    await apply(addAt(1));
    await apply(deleteAt(2));
    sim.state.addUser({ loginUserId: LOGIN, ...ADA, firstName: 'Someone' });
    await apply(addAt(3));

    // Act
    const redriven = await apply(addAt(3));

    // Assess
    expect(redriven).toMatchObject({ category: 'permanent', code: 'USER_EXISTS_NOT_OURS' });
    expect(sim.state.findUser(LOGIN)?.firstName).toBe('Someone');
  });
});

describe('compaction past the tombstone horizon', () => {
  /** An add refused (someone else's user), never redriven, with the user's other events. */
  const refusedAddBetween = async ({ apply, clock }: ReturnType<typeof ledgerFor>) => {
    await apply(addAt(1));
    await apply(deleteAt(2));
    sim.state.addUser({ loginUserId: LOGIN, ...ADA, firstName: 'Someone' });
    const refused = await apply(addAt(3));
    clock.now += DAY_MS;
    await apply(deleteAt(4));
    return refused;
  };

  it('drops a refused event no one redrove, and folds the events behind it', async () => {
    // Prepare
    const ledger = ledgerFor();
    const refused = await refusedAddBetween(ledger);
    ledger.clock.now += (TOMBSTONE_DAYS + 1) * DAY_MS;

    // Act
    const outcome = await ledger.apply(addAt(5));

    // Assess
    const item = await ledger.item();
    expect(refused.code).toBe('USER_EXISTS_NOT_OURS');
    expect(outcome.code).toBe('SUCCESS');
    expect(item.events.map((e) => e.key)).toEqual([addAt(5).key]);
    expect(item.snapshot?.v).toBe(deleteAt(4).v);
    expect(sim.state.findUser(LOGIN)?.firstName).toBe('Ada');
  });

  it('keeps a refused event whose redrive came within the horizon', async () => {
    // Prepare: the redrive is refused again, so its dead letter may be redriven once more.
    const { apply, clock, item } = ledgerFor();
    await apply(addAt(1));
    await apply(deleteAt(2));
    sim.state.addUser({ loginUserId: LOGIN, ...ADA, firstName: 'Someone' });
    await apply(addAt(3));
    clock.now += (TOMBSTONE_DAYS - 5) * DAY_MS;
    const redriven = await apply(addAt(3));
    clock.now += 6 * DAY_MS;

    // Act
    await apply(deleteAt(4));

    // Assess: the events before the refused one are folded; it and the one after it wait.
    expect(redriven.code).toBe('USER_EXISTS_NOT_OURS');
    expect((await item()).events.map((e) => e.key)).toEqual([addAt(3).key, deleteAt(4).key]);
    expect((await item()).snapshot?.v).toBe(deleteAt(2).v);
  });

  it('leaves no event older than the horizon, whatever the history and its refusals', async () => {
    /** Each step: an event of the user, or someone else making or removing a user of that login. */
    const stepArb = fc.record({
      what: fc.constantFrom('add', 'delete', 'outsider-adds', 'outsider-deletes'),
      days: fc.nat(4),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 8 }), async (steps) => {
        // Prepare
        sim.reset();
        const ledger = ledgerFor();
        let n = 0;
        for (const step of steps) {
          ledger.clock.now += step.days * DAY_MS;
          if (step.what === 'outsider-adds' && sim.state.findUser(LOGIN) === undefined) {
            sim.state.addUser({ loginUserId: LOGIN, ...ADA, firstName: 'Someone' });
          } else if (step.what === 'outsider-deletes') {
            sim.state.deleteUser(LOGIN);
          } else if (step.what === 'add' || step.what === 'delete') {
            n += 1;
            await ledger.apply(step.what === 'add' ? addAt(n) : deleteAt(n));
          }
        }
        ledger.clock.now += (TOMBSTONE_DAYS + 1) * DAY_MS;

        // Act
        await ledger.apply(deleteAt(n + 1));

        // Assess
        const item = await ledger.item();
        expect(item.events.map((e) => e.key)).toEqual([deleteAt(n + 1).key]);
      }),
      { numRuns: 60, seed: propertySeed(20261124) },
    );
  });
});

describe('compaction by size', () => {
  const LIMIT = 1_000;

  it('folds the oldest events while the item is over its limit, and keeps the newest', async () => {
    // Prepare
    sim.reset();
    const { apply, item } = ledgerFor(new InMemoryLedgerStore(), LIMIT);
    const sizes: number[] = [];
    const kept: number[] = [];

    // Act: a history no horizon folds (all on one day), much larger than the limit.
    for (let n = 1; n <= 24; n += 1) {
      await apply(n % 2 === 1 ? addAt(n) : deleteAt(n));
      const doc = await item();
      sizes.push(JSON.stringify(doc).length);
      kept.push(doc.events.length);
    }

    // Assess
    const last = await item();
    expect(Math.max(...sizes)).toBeLessThanOrEqual(LIMIT);
    expect(Math.min(...kept.slice(-8))).toBeGreaterThan(1);
    expect(last.events.at(-1)?.key).toBe(deleteAt(24).key);
    expect(last.snapshot?.v).toBe(String(24 - last.events.length).padStart(3, '0'));
    expect(sim.state.findUser(LOGIN)).toBeUndefined();
  });
});

describe('a write the platform answered', () => {
  it('gives the message its answer: delete-user’s NOT_FOUND read as ALREADY_ABSENT', async () => {
    // Prepare: the ledger added the user; it was then removed outside the integration, so the
    // replay wants a delete and the ledger sends one (rule 6 of message-outcome.ts, not rule 5).
    const { apply } = ledgerFor();
    await apply(addAt(1));
    sim.state.deleteUser(LOGIN);
    const sent = sim.stats.endpoint('delete-user').requests;

    // Act
    const outcome = await apply(deleteAt(2));

    // Assess
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_ABSENT', attempts: 1 });
    expect(sim.stats.endpoint('delete-user').requests - sent).toBe(1);
  });

  it('takes ALREADY_EXISTS as in place for a user an item of the first schema says is ours', async () => {
    // Prepare: an item of the ledger's first schema (no versions): the user there, made by us.
    const store = new InMemoryLedgerStore();
    const key = user.keyOf({ loginUserId: LOGIN });
    await store.claim(key, { token: 'old', until: 0, eventKey: 'seed' }, 0);
    await store.commit(key, 'old', { present: true, ours: true } as never);
    await store.release(key, 'old');
    sim.state.addUser({ loginUserId: LOGIN, ...ADA });
    const { apply } = ledgerFor(store);

    // Act
    const outcome = await apply(addAt(5));

    // Assess: read first (the item is a doubt), then the add, answered ALREADY_EXISTS: ours
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_EXISTS' });
    expect(sim.state.findUser(LOGIN)?.firstName).toBe('Ada');
  });
});

describe('a step that throws', () => {
  /** The user kind, its steps recorded; `throwAfter` throws once that step's call has been made. */
  const recorded = (throwAfter?: UserStep['kind']) => {
    const steps: string[] = [];
    const kind: AnyEntityKind = {
      ...user,
      run: async (step: UserStep, context: Parameters<typeof user.run>[1]) => {
        steps.push(step.kind);
        const answer = await user.run(step, context);
        if (step.kind === throwAfter) throw new TypeError('a bug after the call');
        return answer;
      },
    };
    return { kind, steps };
  };

  it('leaves the entity in doubt: the next message reads the platform first', async () => {
    // Prepare: the user is there; a delete-user call lands, then its step throws.
    const { apply } = ledgerFor();
    await apply(addAt(1));
    const throwing = recorded('delete');
    const thrown = apply(deleteAt(2), throwing.kind);
    await expect(thrown).rejects.toThrow(TypeError);
    const next = recorded();

    // Act: the delete comes back.
    const outcome = await apply(deleteAt(2), next.kind);

    // Assess
    expect(throwing.steps).toEqual(['delete']);
    expect(next.steps[0]).toBe('read');
    expect(outcome).toMatchObject({ category: 'success', code: 'ALREADY_ABSENT' });
    expect(sim.state.findUser(LOGIN)).toBeUndefined();
  });

  it('throws its own error when the ledger cannot write the doubt either', async () => {
    // Prepare
    const store = new (class extends InMemoryLedgerStore {
      failCommits = false;
      override async commit(...args: Parameters<InMemoryLedgerStore['commit']>) {
        if (this.failCommits) throw new Error('the table is unreachable');
        return super.commit(...args);
      }
    })();
    const { apply } = ledgerFor(store);
    await apply(addAt(1));
    store.failCommits = true;

    // Act
    const thrown = apply(deleteAt(2), recorded('delete').kind);

    // Assess
    await expect(thrown).rejects.toThrow('a bug after the call');
  });
});

const REGION = 'eu-central-1';
/** `minute` past 08:00 on 24 Nov 2026. */
const at = (minute: number) => Date.UTC(2026, 10, 24, 8, minute);
/** A record family's event at `minute`, versioned as the pipeline versions it. */
const recordEvent = (action: string, minute: number, rank: EventRank, op: RecordOp) =>
  newEvent(action, versionOf(rank, op, at(minute)), op);
/** The add at minute 0 that makes the family's record in `campaign`. */
const addTo = (campaign: string, name: string) =>
  recordEvent('add-or-update-campaign-record', 0, 'add', {
    kind: 'upsert',
    campaign,
    items: [{ key: 'Name', value: name }],
  });
/** A fresh ledger applying one family's messages, one at a time, against the simulator. */
const familyLedger = (clientId: string) => {
  const ledger = new EntityLedger({ store: new InMemoryLedgerStore(), sleep: async () => {} });
  return (e: NewEvent) =>
    ledger.apply(recordFamily, {
      id: { region: REGION, clientId },
      event: e,
      platform,
      call: { deadline: Date.now() + 30_000 },
      deadline: Date.now() + 30_000,
    });
};

describe('the ledger on a record family whose move back finds a record made outside', () => {
  const add = addTo('Leads', 'Ada');
  const move = (minute: number, from: string, to: string) =>
    recordEvent('transfer-campaign-record', minute, 'transfer', {
      kind: 'transfer',
      campaign: from,
      to,
      routing: {},
    });
  const complete = recordEvent('change-campaign-record-status', 30, 'change', {
    kind: 'status',
    campaign: 'Leads',
    state: 'COMPLETED',
    routing: {},
  });

  it('refuses the move and the family messages after it, never taking them as applied', async () => {
    // Prepare: the ledger added the record in Leads and moved it to Later; then someone made a
    // record with the same clientId in Leads, which the ledger had already written to.
    const apply = familyLedger('C-1');
    await apply(add);
    await apply(move(10, 'Leads', 'Later'));
    sim.state.putRecord({
      campaignName: 'Leads',
      clientId: 'C-1',
      previewRecordData: [{ key: 'Name', value: 'made by hand' }],
    });

    // Act
    const back = await apply(move(20, 'Later', 'Leads'));
    const after = await apply(complete);

    // Assess: both refused with the reason, nothing moved, the hand-made record untouched.
    expect(back).toMatchObject({ category: 'permanent', code: 'TRANSFER_TARGET_OCCUPIED' });
    expect(after).toMatchObject({ category: 'permanent', code: 'TRANSFER_TARGET_OCCUPIED' });
    expect(sim.state.findByClientId('Later', 'C-1')).toBeDefined();
    expect(sim.state.findByClientId('Leads', 'C-1')?.workedState).toBe('NOTWORKED');
  });
});

describe('an agent works a record, then a status change older than that work arrives', () => {
  const add = addTo('Leads', 'Seven');
  const status = (minute: number, state: 'NOTWORKED' | 'REMOVED', skillQueue?: string) =>
    recordEvent('change-campaign-record-status', minute, 'change', {
      kind: 'status',
      campaign: 'Leads',
      state,
      routing: skillQueue === undefined ? {} : { skillQueue },
    });

  it.each([
    ['older than the work: the agent’s state stays', 10, undefined, 'STALE_SKIPPED', 'COMPLETED'],
    [
      'older, with a queue: the queue is set, the state stays',
      10,
      'Retention',
      'SUCCESS',
      'COMPLETED',
    ],
    ['newer than the work: it applies', 30, undefined, 'SUCCESS', 'REMOVED'],
  ] as const)('%s', async (_name, minute, queue, code, state) => {
    // Prepare: the ledger added the record; an agent completed it at minute 20
    const apply = familyLedger('C-7');
    await apply(add);
    sim.state.recordAttempt(
      'Leads',
      { clientId: 'C-7' },
      { agent: 'agent.a', at: at(20), workedState: 'COMPLETED' },
    );

    // Act: met for the first time after the work (a long backoff, a redrive)
    const late = await apply(status(minute, minute < 20 ? 'NOTWORKED' : 'REMOVED', queue));

    // Assess
    const record = sim.state.findByClientId('Leads', 'C-7');
    expect(late.code).toBe(code);
    expect(record?.workedState).toBe(state);
    expect(record?.workAttempts).toBe(1);
    if (queue !== undefined) expect(record?.skillQueue).toBe(queue);
  });

  it('names the agent’s work where the record is now, after it moved', async () => {
    // Prepare: added in Leads, moved to Later at minute 15, completed there at minute 20
    const apply = familyLedger('C-9');
    await apply(addTo('Leads', 'Nine'));
    sim.state.addCampaign('Later');
    await apply(
      recordEvent('transfer-campaign-record', 15, 'transfer', {
        kind: 'transfer',
        campaign: 'Leads',
        to: 'Later',
        routing: {},
      }),
    );
    sim.state.recordAttempt(
      'Later',
      { clientId: 'C-9' },
      { agent: 'agent.a', at: at(20), workedState: 'COMPLETED' },
    );

    // Act: a status change from minute 10, when the record was still in Leads, met only now
    const late = await apply(status(10, 'NOTWORKED'));

    // Assess
    expect(late).toMatchObject({
      code: 'STALE_SKIPPED',
      message: expect.stringContaining('an agent worked this record in "Later"'),
    });
    expect(sim.state.findByClientId('Later', 'C-9')?.workedState).toBe('COMPLETED');
  });

  it('keeps the callback an agent scheduled from an older event’s next work time', async () => {
    // Prepare: the ledger added the record; at minute 20 an agent worked it and scheduled a
    // callback (WORKED, next work time set on the platform)
    const apply = familyLedger('C-8');
    await apply(addTo('Leads', 'Eight'));
    const callback = at(24 * 60);
    await platform.send(changeCampaignRecordStatus, {
      campaignName: 'Leads',
      region: REGION,
      clientId: 'C-8',
      previewRecordStateEnum: 'WORKED',
      nextEarliestWorkTimeUTC: callback,
    });
    sim.state.recordAttempt(
      'Leads',
      { clientId: 'C-8' },
      { agent: 'agent.a', at: at(20), workedState: 'WORKED' },
    );

    // Act: a status change from minute 10 asking for another time, met only now
    const late = await apply(
      recordEvent('change-campaign-record-status', 10, 'change', {
        kind: 'status',
        campaign: 'Leads',
        state: 'WORKED',
        routing: { nextWork: at(60) },
      }),
    );

    // Assess
    const record = sim.state.findByClientId('Leads', 'C-8');
    expect(late.code).toBe('STALE_SKIPPED');
    expect(record?.workedState).toBe('WORKED');
    expect(record?.nextEarliestWorkTime).toBe('2026-11-25 08:00:00.000');
  });
});

describe('a copy of a user event stored before its op was renamed (join → add, leave → delete)', () => {
  // Its version hashed the op as version 3 named it: a copy redelivered after the rename gets
  // another version, at the same time and rank.
  const OLD = { add: { kind: 'join', user: ADA }, delete: { kind: 'leave' } } as const;
  const NOW_OP: { readonly [K in UserOp['kind']]: UserOp } = {
    add: { kind: 'add', user: ADA },
    delete: { kind: 'delete' },
  };
  const ACTION = { add: 'add-user', delete: 'delete-user' } as const;
  const copyOf = (what: UserOp['kind'], ms: number, words: 'old' | 'now'): NewEvent => {
    const v = versionOf(what, words === 'old' ? OLD[what] : NOW_OP[what], ms);
    return newEvent(ACTION[what], v, NOW_OP[what]);
  };

  it('makes no platform call, is skipped, and leaves the user as it was', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<UserOp['kind']>('add', 'delete'),
        fc.integer({ min: 0, max: 10_000 }),
        async (what, second) => {
          // Prepare: the user's events as the ledger stored them before the rename (read back
          // in today's words, their versions as they were), its last one the one copied.
          sim.reset();
          const { apply, item } = ledgerFor();
          const ms = Date.UTC(2026, 10, 24, 8) + second * 1000;
          if (what === 'delete') await apply(copyOf('add', ms - 60_000, 'old'));
          await apply(copyOf(what, ms, 'old'));
          const before = await item();
          const requests = sim.stats.requests;

          // Act
          const outcome = await apply(copyOf(what, ms, 'now'));

          // Assess
          expect(sim.stats.requests).toBe(requests);
          expect(['DUPLICATE', 'STALE_SKIPPED']).toContain(outcome.code);
          const after = await item();
          const replay = (doc: typeof before) =>
            user.values(user.replay(user.start(doc.known, doc.snapshot?.state), doc.events).state);
          expect(replay(after)).toEqual(replay(before));
          expect(after.known).toEqual(before.known);
          expect(sim.state.findUser(LOGIN) !== undefined).toBe(what === 'add');
        },
      ),
      { numRuns: 40 },
    );
  });
});
