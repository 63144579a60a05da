/**
 * The record family's steps: from what the ledger knows the platform holds to what the replay
 * wants, with the fewest calls, never sending a field whose desired version is not newer than
 * the one applied (so work done on the platform stays), and reading first where in doubt.
 */
import { describe, expect, it } from 'vitest';
import { recordFamily } from '../../../lambdas/entities/record-family';
import { type KnownFamily, surePlace } from '../../../lambdas/entities/record-family/known';
import { learnFamily } from '../../../lambdas/entities/record-family/learn';
import {
  type RecordEvent,
  type RecordOp,
  recordAt,
} from '../../../lambdas/entities/record-family/model';
import { dataHash } from '../../../lambdas/entities/record-family/record-data';
import { replayFamily } from '../../../lambdas/entities/record-family/replay';
import { familySteps } from '../../../lambdas/entities/record-family/steps';

const event = (v: string, op: RecordOp): RecordEvent => ({ key: `e@${v}`, v, action: 'test', op });
const add = (campaign: string, name: string): RecordOp => ({
  kind: 'upsert',
  campaign,
  items: [{ key: 'Name', value: name }],
});

/** What a read finds where the ledger knows a record: its values (no agent has worked it). */
const found = (known: KnownFamily, campaign: string) => {
  const record = recordAt(surePlace(known.places[campaign]));
  if (record === undefined) return null;
  return {
    values: Object.fromEntries(
      Object.entries(record.fields).map(([name, field]) => [name, field?.value ?? null]),
    ),
  };
};

/** Plans and "applies" every step as answered (no platform) for one message: what the ledger then knows. */
const settle = (
  events: RecordEvent[],
  known: KnownFamily,
): { steps: string[]; known: KnownFamily } => {
  const steps: string[] = [];
  let now = recordFamily.forMessage?.(known) ?? known;
  for (let i = 0; i < 20; i += 1) {
    const desired = replayFamily(now.base, events).state;
    const [step] = familySteps(desired, now, events);
    if (step === undefined) return { steps, known: now };
    steps.push(
      step.kind === 'transfer'
        ? `transfer ${step.from}→${step.to}`
        : `${step.kind} ${'campaign' in step ? step.campaign : ''}`.trim(),
    );
    const observed = step.kind === 'read' ? found(now, step.campaign) : null;
    now = learnFamily(now, step, {
      outcome: { category: 'success', code: 'SUCCESS', message: '', attempts: 1 },
      status: 'done',
      finding:
        step.kind !== 'read'
          ? { kind: 'nothing-more' }
          : observed === null
            ? { kind: 'absent' }
            : { kind: 'found', observed },
    });
  }
  throw new Error('the plan did not settle');
};

const EMPTY: KnownFamily = { places: {}, base: {}, written: [] };

describe('record family steps', () => {
  it('sends one call per event delivered in order', () => {
    // Prepare
    const ops: RecordOp[] = [
      add('A', 'Ana'),
      { kind: 'status', campaign: 'A', state: 'COMPLETED', routing: {} },
      { kind: 'transfer', campaign: 'A', to: 'B', routing: { skillQueue: 'Q' } },
      { kind: 'delete', campaign: 'B' },
    ];
    let known = EMPTY;
    const calls: string[][] = [];
    // Act
    for (let i = 0; i < ops.length; i += 1) {
      const result = settle(
        ops.slice(0, i + 1).map((op, j) => event(String(j + 1), op)),
        known,
      );
      calls.push(result.steps);
      known = result.known;
    }
    // Assess
    // A state is sent only after a read: an agent may have worked the record since.
    expect(calls).toEqual([['upsert A'], ['read A', 'status A'], ['transfer A→B'], ['delete B']]);
  });

  it('reads a moved record again before its state goes, though its new campaign was read empty', () => {
    // Prepare: the record added in A, and B in doubt (so B is read first); then a move to B and
    // a status change there arrive together
    const inA = settle([event('1', add('A', 'Ana'))], EMPTY).known;
    const added: KnownFamily = {
      ...inA,
      places: { ...inA.places, B: { unsure: { sent: [] } } },
      written: [...inA.written, 'B'],
    };
    const events = [
      event('1', add('A', 'Ana')),
      event('2', { kind: 'transfer', campaign: 'A', to: 'B', routing: {} }),
      event('3', { kind: 'status', campaign: 'B', state: 'COMPLETED', routing: {} }),
    ];

    // Act
    const { steps } = settle(events, added);

    // Assess: reading B empty said nothing of the record that moved there
    expect(steps).toEqual(['read B', 'transfer A→B', 'read B', 'status B']);
  });

  it('never sends back what work on the platform changed when a newer event does not set it', () => {
    // Prepare: the record was added (NOTWORKED) and an agent has completed it since
    const events = [event('1', add('A', 'Ana'))];
    const added = settle(events, EMPTY).known;
    const record = (added.places.A as { record: { fields: object } }).record;
    const worked: KnownFamily = {
      ...added,
      places: {
        A: {
          record: {
            ...record,
            origin: { kind: 'ours', born: '1' },
            at: '1',
            fields: { ...record.fields, state: { v: '1', value: 'COMPLETED' } },
          },
        },
      },
    };
    // Act: a newer add-or-update that sets only data
    const plan = familySteps(
      replayFamily({}, [...events, event('2', add('A', 'Ana B'))]).state,
      worked,
      [...events, event('2', add('A', 'Ana B'))],
    );
    // Assess: the data goes, the state is not touched
    expect(plan).toEqual([expect.objectContaining({ kind: 'upsert', campaign: 'A', dataOf: '2' })]);
  });

  it('reads first a campaign in doubt after an unanswered call, and a campaign first met by a status change', () => {
    // Prepare
    const events = [event('1', { kind: 'status', campaign: 'A', state: 'COMPLETED', routing: {} })];
    const inDoubt: KnownFamily = {
      ...EMPTY,
      places: { B: { unsure: { sent: ['data'] } } },
      written: ['B'],
    };
    // Act
    const plan = familySteps(replayFamily({}, events).state, inDoubt, events);
    // Assess
    expect(plan).toEqual([
      { kind: 'read', campaign: 'A' },
      { kind: 'read', campaign: 'B' },
    ]);
  });

  it('does not read before an add: it adds, or updates a record made outside', () => {
    const events = [event('1', add('A', 'Ana'))];
    expect(familySteps(replayFamily({}, events).state, EMPTY, events).map((s) => s.kind)).toEqual([
      'upsert',
    ]);
  });

  it('a chain of moves that arrives late becomes one transfer from where the record is', () => {
    // Prepare: the add was applied; the record then moved A → B → C (events arrive late)
    const first = [event('1', add('A', 'Ana'))];
    const known = settle(first, EMPTY).known;
    const events = [
      ...first,
      event('2', { kind: 'transfer', campaign: 'A', to: 'B', routing: {} }),
      event('3', { kind: 'transfer', campaign: 'B', to: 'C', routing: {} }),
    ];
    // Act
    const { steps, known: after } = settle(events, known);
    // Assess: one call, and the ledger knows the record left A for C (where that call put it)
    expect(steps).toEqual(['transfer A→C']);
    expect(after.places.A).toMatchObject({ gone: { by: 'transfer', v: '2', to: 'C' } });
  });

  it('a delete that arrives after a later add was applied as an update re-creates the record', () => {
    // Prepare: add@1 and add@3 applied (one record, updated); delete@2 arrives late
    const known = settle([event('1', add('A', 'Ana')), event('3', add('A', 'Ana B'))], EMPTY).known;
    const events = [
      event('1', add('A', 'Ana')),
      event('2', { kind: 'delete', campaign: 'A' }),
      event('3', add('A', 'Ana B')),
    ];
    // Act
    const { steps, known: after } = settle(events, known);
    // Assess: the old record goes and a fresh one with the later data comes
    expect(steps).toEqual(['delete A', 'upsert A']);
    expect(after.places.A).toMatchObject({
      record: {
        origin: { kind: 'ours', born: '3' },
        fields: { data: { value: dataHash([{ key: 'Name', value: 'Ana B' }]) } },
      },
    });
  });

  it('leaves alone a record made outside the integration that no event names', () => {
    const known: KnownFamily = {
      places: { Z: { record: { origin: { kind: 'outside' }, fields: {} } } },
      base: { Z: { record: { origin: { kind: 'outside' }, fields: {} } } },
      written: [],
    };
    const events = [event('1', add('A', 'Ana'))];
    expect(settle(events, known).steps).toEqual(['upsert A']);
  });
});
