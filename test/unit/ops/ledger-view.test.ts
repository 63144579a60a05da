import { describe, expect, it } from 'vitest';
import { eventVersion } from '../../../lambdas/core/ledger/event-version';
import { ENTITY_KINDS } from '../../../lambdas/entities';
import type { RecordOp } from '../../../lambdas/entities/record-family/model';
import { describeLedgerItem } from '../../../ops/ledger-view';

describe('what ops trace shows of a ledger item', () => {
  it('names what is wrong with an item that does not parse, and what to do, instead of failing', () => {
    // Prepare: the item LEDGER_ITEM_INVALID dead letters point the operator at.
    const raw = {
      schema: ENTITY_KINDS.user.parts.schema,
      kind: 'user',
      id: { loginUserId: 'ada@example.com' },
      events: 'not a list',
      known: {},
    };

    // Act
    const lines = describeLedgerItem(ENTITY_KINDS.user, raw);

    // Assess
    expect(lines.join('\n')).toContain('does not parse (item.events');
    expect(lines.join('\n')).toContain('LEDGER_ITEM_INVALID');
    expect(lines.join('\n')).toContain('delete the item under the ledger key above');
  });

  it.each([
    ['no item', undefined, 'no ledger entry'],
    ['an item of an older ledger version', { schema: 1 }, 'an entry of an older ledger version'],
  ])('says so for %s', (_name, raw, expected) => {
    // Act
    const lines = describeLedgerItem(ENTITY_KINDS.user, raw);

    // Assess
    expect(lines.join('\n')).toContain(expected);
  });

  it('shows each event with its source, and an older event without one', () => {
    // Prepare: a queue add, a SCIM delete, and an event written before sources were kept.
    const add = {
      kind: 'add',
      user: { firstName: 'Ada', lastName: 'L', userTemplateName: 'Agent' },
    };
    const raw = {
      schema: ENTITY_KINDS.user.parts.schema,
      kind: 'user',
      id: { loginUserId: 'ada@example.com' },
      events: [
        {
          key: 'add-user@1',
          v: '000001700000000000.1.a',
          action: 'add-user',
          op: add,
          settled: true,
          outcome: 'SUCCESS',
        },
        {
          key: 'add-user@2',
          v: '000001700000001000.1.b',
          action: 'add-user',
          op: add,
          settled: true,
          outcome: 'ALREADY_EXISTS',
          source: 'queue',
        },
        {
          key: 'delete-user@3',
          v: '000001700000002000.4.c',
          action: 'delete-user',
          op: { kind: 'delete' },
          settled: true,
          outcome: 'SUCCESS',
          source: 'scim',
        },
      ],
      known: {
        place: { gone: { by: 'delete', v: '000001700000002000.4.c' } },
        base: { stage: 'written-unseen' },
      },
    };

    // Act
    const lines = describeLedgerItem(ENTITY_KINDS.user, raw);

    // Assess
    const events = lines.filter((line) => /(add|delete)-user/.test(line));
    expect(events).toEqual([
      expect.not.stringContaining('[from'),
      expect.stringMatching(/add-user .*ALREADY_EXISTS \[from queue\]$/),
      expect.stringMatching(/delete-user .*SUCCESS \[from scim\]$/),
    ]);
  });

  it('shows who made each record of a family and why a campaign is empty, from an older item too', () => {
    // Prepare: the family's record moved from Leads to Later; Other holds one made outside, found
    // by a read. The same item as schema 2 said both with empty versions, and neither it nor one
    // of schema 3 written before destinations were kept says where the record went.
    const add = '001795507200000.1.a';
    const move = '001795507800000.3.b';
    const event = (key: string, v: string, op: object) => ({
      key,
      v,
      action: key.split('@')[0],
      op,
      settled: true,
      outcome: 'SUCCESS',
    });
    const events = [
      event(`add-or-update-campaign-record@${add}`, add, {
        kind: 'upsert',
        campaign: 'Leads',
        items: [{ key: 'Name', value: 'Ada' }],
      }),
      event(`transfer-campaign-record@${move}`, move, {
        kind: 'transfer',
        campaign: 'Leads',
        to: 'Later',
        routing: {},
      }),
    ];
    const item = (schema: number, known: object) => ({
      schema,
      kind: 'record-family',
      id: { region: 'eu-central-1', clientId: 'C-1' },
      events,
      known,
    });
    const known = (to?: string) => ({
      places: {
        Leads: { gone: { by: 'transfer', v: move, ...(to === undefined ? {} : { to }) } },
        Later: { record: { origin: { kind: 'ours', born: add }, at: move, fields: {} } },
        Other: { record: { origin: { kind: 'outside' }, fields: {} } },
      },
      base: { Leads: { gone: { by: 'nothing' } }, Later: { gone: { by: 'nothing' } } },
      written: ['Leads', 'Later'],
    });
    const schema = ENTITY_KINDS['record-family'].parts.schema;
    const current = item(schema, known('Later'));
    const beforeDestinations = item(schema, known());
    const v2 = item(2, {
      places: {
        Leads: { gone: move },
        Later: { record: { born: add, at: move, fields: {} } },
        Other: { record: { born: '', at: '', fields: {} } },
      },
      base: { Leads: { gone: '' }, Later: { gone: '' } },
      written: ['Leads', 'Later'],
    });

    // Act
    const lines = describeLedgerItem(ENTITY_KINDS['record-family'], current);
    const linesBefore = describeLedgerItem(ENTITY_KINDS['record-family'], beforeDestinations);
    const linesOfV2 = describeLedgerItem(ENTITY_KINDS['record-family'], v2);

    // Assess: where the record went, in what the ledger knows; an older item does not make it up.
    const onPlatform = (all: string[]) =>
      all.slice(all.indexOf('  on the platform, as the ledger knows it'));
    const desired = (all: string[]) =>
      all.slice(0, all.indexOf('  on the platform, as the ledger knows it'));
    const knownLines = (leads: RegExp) => [
      '  on the platform, as the ledger knows it',
      expect.stringMatching(/^ {4}Later +record made 2026-11-24T08:00:00.000Z$/),
      expect.stringMatching(leads),
      expect.stringMatching(/^ {4}Other +record made outside this integration$/),
    ];
    expect(onPlatform(lines)).toEqual(
      knownLines(/^ {4}Leads +moved to Later \(since 2026-11-24T08:10:00.000Z\)$/),
    );
    expect(onPlatform(linesBefore)).toEqual(
      knownLines(
        /^ {4}Leads +moved away, where to not recorded \(since 2026-11-24T08:10:00.000Z\)$/,
      ),
    );
    // What the events want is replayed from them, so it knows where the record went either way.
    expect(desired(linesBefore)).toContainEqual(
      expect.stringMatching(/^ {4}Leads +moved to Later \(since 2026-11-24T08:10:00.000Z\)$/),
    );
    expect(linesOfV2).toEqual(linesBefore);
  });

  it("shows a record family's events by campaign and what their replay wants, through its kind", () => {
    // Prepare: an add in Leads, then a transfer to Won; the ledger knows nothing of the platform.
    const family = ENTITY_KINDS['record-family'];
    const added = eventVersion(Date.UTC(2026, 10, 24, 8, 0), 'add', 'a'.repeat(16));
    const moved = eventVersion(Date.UTC(2026, 10, 24, 8, 5), 'transfer', 'b'.repeat(16));
    const add: RecordOp = {
      kind: 'upsert',
      campaign: 'Leads',
      items: [{ key: 'Name', value: 'Ada' }],
    };
    const transfer: RecordOp = { kind: 'transfer', campaign: 'Leads', to: 'Won', routing: {} };
    const raw = {
      schema: family.parts.schema,
      kind: family.name,
      id: { region: 'eu-central-1', clientId: 'c-1' },
      events: [
        {
          key: `add-or-update-campaign-record@${added}`,
          v: added,
          action: 'add-or-update-campaign-record',
          op: add,
          settled: true,
          outcome: 'SUCCESS',
        },
        {
          key: `transfer-campaign-record@${moved}`,
          v: moved,
          action: 'transfer-campaign-record',
          op: transfer,
          settled: true,
          outcome: 'SUCCESS',
        },
      ],
      known: family.unknown,
    };

    // Act
    const lines = describeLedgerItem(family, raw);

    // Assess: each event names its campaign; the desired state is the replay's (moved to Won),
    // which knows where the record went whatever the item kept.
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/08:00:00\.000Z {2}add-or-update-campaign-record +Leads +SUCCESS$/),
        expect.stringMatching(/08:05:00\.000Z {2}transfer-campaign-record +Leads → Won +SUCCESS$/),
        '  desired (the events replayed in order)',
        expect.stringMatching(/^ {4}Leads +moved to Won \(since 2026-11-24T08:05:00\.000Z\)$/),
        expect.stringMatching(/^ {4}Won +record made 2026-11-24T08:00:00\.000Z/),
        '  on the platform, as the ledger knows it',
      ]),
    );
    expect(lines.join('\n')).not.toContain('Ada');
  });
});
