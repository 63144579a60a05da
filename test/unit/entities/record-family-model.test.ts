/**
 * The record family's replay against the realtime spec (and the simulator's decisions where the
 * spec says "not shown", docs/decisions.md): what each request does to a map of campaign →
 * record, event by event.
 */
import { describe, expect, it } from 'vitest';
import type { Effect } from '../../../lambdas/core/ledger/entity-kind';
import { NO_EVENT } from '../../../lambdas/core/ledger/event-version';
import type {
  FamilyState,
  RecordEvent,
  RecordOp,
} from '../../../lambdas/entities/record-family/model';
import { dataHash } from '../../../lambdas/entities/record-family/record-data';
import { replayFamily } from '../../../lambdas/entities/record-family/replay';

const event = (v: string, op: RecordOp): RecordEvent => ({ key: `e@${v}`, v, action: 'test', op });
const upsert = (
  campaign: string,
  name: string,
  extra: Partial<Extract<RecordOp, { kind: 'upsert' }>> = {},
): RecordOp => ({
  kind: 'upsert',
  campaign,
  items: [{ key: 'Name', value: name }],
  ...extra,
});
const status = (
  campaign: string,
  state: 'NOTWORKED' | 'WORKED' | 'COMPLETED' | 'REMOVED',
  routing = {},
): RecordOp => ({
  kind: 'status',
  campaign,
  state,
  routing,
});
const transfer = (campaign: string, to: string, routing = {}): RecordOp => ({
  kind: 'transfer',
  campaign,
  to,
  routing,
});
const remove = (campaign: string): RecordOp => ({ kind: 'delete', campaign });

/**
 * The values of each campaign's record (versions left out) and the create that made it, or the
 * version of the event it went at (and where a transfer took it).
 */
const shown = (state: FamilyState) =>
  Object.fromEntries(
    Object.entries(state).map(([campaign, place]) => [
      campaign,
      'gone' in place
        ? `gone@${'v' in place.gone ? place.gone.v : place.gone.by}${place.gone.by === 'transfer' ? `→${place.gone.to}` : ''}`
        : {
            born: place.record.origin.kind === 'ours' ? place.record.origin.born : 'outside',
            ...Object.fromEntries(
              Object.entries(place.record.fields).map(([name, field]) => [name, field?.value]),
            ),
          },
    ]),
  );

const data = (name: string) => dataHash([{ key: 'Name', value: name }]);
const fresh = (born: string, name: string, extra: object = {}) => ({
  born,
  data: data(name),
  state: 'NOTWORKED',
  agent: null,
  nextWork: null,
  skillQueue: null,
  timeZone: null,
  ...extra,
});

const NO_RECORD: Effect['kind'] = 'none';

describe('record family replay: each request as the realtime spec applies it', () => {
  it.each<[string, FamilyState, RecordOp[], Record<string, unknown>, Effect['kind'][]]>([
    [
      'add-or-update on an empty campaign adds a NOTWORKED record with what it sets',
      {},
      [upsert('A', 'Ana', { agent: 'agent.a', nextWork: 5 })],
      { A: fresh('1', 'Ana', { agent: 'agent.a', nextWork: 5 }) },
      ['applied'],
    ],
    [
      'add-or-update of a record that is there replaces its data and keeps its state (rule 1)',
      {},
      [upsert('A', 'Ana'), status('A', 'COMPLETED'), upsert('A', 'Ana B')],
      { A: fresh('1', 'Ana B', { state: 'COMPLETED' }) },
      ['applied', 'applied', 'applied'],
    ],
    [
      'the SkillQueue and ItemTimeZone data items set the queue and the zone',
      {},
      [
        {
          kind: 'upsert',
          campaign: 'A',
          items: [
            { key: 'Name', value: 'Ana' },
            { key: 'SkillQueue', value: 'Sales' },
            { key: 'ItemTimeZone', value: 'Europe/Berlin' },
          ],
        },
      ],
      {
        A: {
          ...fresh('1', 'Ana'),
          data: dataHash([
            { key: 'Name', value: 'Ana' },
            { key: 'SkillQueue', value: 'Sales' },
            { key: 'ItemTimeZone', value: 'Europe/Berlin' },
          ]),
          skillQueue: 'Sales',
          timeZone: 'Europe/Berlin',
        },
      },
      ['applied'],
    ],
    [
      'a status change sets the state and its routing fields; an empty agent clears the preference',
      {},
      [
        upsert('A', 'Ana', { agent: 'agent.a' }),
        status('A', 'WORKED', { agent: '', nextWork: 9, skillQueue: 'Q' }),
      ],
      { A: fresh('1', 'Ana', { state: 'WORKED', nextWork: 9, skillQueue: 'Q' }) },
      ['applied', 'applied'],
    ],
    [
      'a status change where no record is has no effect (NORECORDFOUND)',
      {},
      [status('A', 'COMPLETED')],
      {},
      [NO_RECORD],
    ],
    [
      'a transfer moves the record (its incarnation too), applies its routing fields, and says where',
      {},
      [upsert('A', 'Ana'), status('A', 'COMPLETED'), transfer('A', 'B', { skillQueue: 'Q' })],
      { A: 'gone@3→B', B: fresh('1', 'Ana', { state: 'COMPLETED', skillQueue: 'Q' }) },
      ['applied', 'applied', 'applied'],
    ],
    [
      'a status change or delete in the campaign a transfer emptied finds nothing, and leaves its Gone',
      {},
      [upsert('A', 'Ana'), transfer('A', 'B'), status('A', 'COMPLETED'), remove('A')],
      { A: 'gone@2→B', B: fresh('1', 'Ana') },
      ['applied', 'applied', NO_RECORD, NO_RECORD],
    ],
    [
      'an add in the campaign a transfer emptied makes a new record there, and a move back replaces its Gone',
      {},
      [
        upsert('A', 'Ana'),
        transfer('A', 'B'),
        upsert('A', 'Al'),
        transfer('B', 'C'),
        transfer('C', 'B'),
      ],
      { A: fresh('3', 'Al'), B: fresh('1', 'Ana'), C: 'gone@5→B' },
      ['applied', 'applied', 'applied', 'applied', 'applied'],
    ],
    [
      'a transfer into a campaign that holds the clientId is refused and moves nothing',
      {},
      [upsert('A', 'Ana'), upsert('B', 'Bo'), transfer('A', 'B')],
      { A: fresh('1', 'Ana'), B: fresh('2', 'Bo') },
      ['applied', 'applied', 'conflict'],
    ],
    [
      'a transfer of a record that is not there has no effect',
      {},
      [transfer('A', 'B')],
      {},
      [NO_RECORD],
    ],
    [
      'a delete removes the record; a delete of nothing has no effect',
      {},
      [upsert('A', 'Ana'), remove('A'), remove('A')],
      { A: 'gone@2' },
      ['applied', 'applied', 'none'],
    ],
    [
      'an add after a delete starts a new record (a new incarnation)',
      {},
      [upsert('A', 'Ana'), status('A', 'COMPLETED'), remove('A'), upsert('A', 'Ana')],
      { A: fresh('4', 'Ana') },
      ['applied', 'applied', 'applied', 'applied'],
    ],
    [
      'a record moved away and back keeps its incarnation; a stray event to where it left finds nothing',
      {},
      [upsert('A', 'Ana'), transfer('A', 'B'), status('A', 'COMPLETED'), transfer('B', 'A')],
      { A: fresh('1', 'Ana'), B: 'gone@4→A' },
      ['applied', 'applied', 'none', 'applied'],
    ],
    [
      'the same clientId in two campaigns: two records, each changed by its own events',
      {},
      [upsert('A', 'Ana'), upsert('B', 'Bo'), status('B', 'REMOVED')],
      { A: fresh('1', 'Ana'), B: fresh('2', 'Bo', { state: 'REMOVED' }) },
      ['applied', 'applied', 'applied'],
    ],
    [
      'a record made outside the integration (the replay starts from what a read found) is changed',
      {
        A: {
          record: {
            origin: { kind: 'outside' },
            fields: { state: { v: NO_EVENT, value: 'NOTWORKED' } },
          },
        },
      },
      [status('A', 'COMPLETED')],
      { A: { born: 'outside', state: 'COMPLETED' } },
      ['applied'],
    ],
  ])('%s', (_name, start, ops, expected, effects) => {
    // Prepare
    const events = ops.map((op, i) => event(String(i + 1), op));
    // Act
    const replayed = replayFamily(start, events);
    // Assess
    expect(shown(replayed.state)).toEqual(expected);
    expect(events.map((e) => replayed.effects.get(e.key)?.kind)).toEqual(effects);
  });

  it('keeps for each field the version of the event that last set it', () => {
    // Prepare
    const events = [
      event('1', upsert('A', 'Ana')),
      event('2', status('A', 'WORKED', { nextWork: 7 })),
      event('3', upsert('A', 'Bo')),
    ];
    // Act
    const record = replayFamily({}, events).state.A;
    // Assess
    expect(record).toMatchObject({
      record: {
        origin: { kind: 'ours', born: '1' },
        at: '3',
        fields: {
          data: { v: '3', value: data('Bo') },
          state: { v: '2', value: 'WORKED' },
          nextWork: { v: '2', value: 7 },
          agent: { v: '1', value: null },
        },
      },
    });
  });
});
