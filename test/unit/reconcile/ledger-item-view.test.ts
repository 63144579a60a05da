/**
 * The ledger item view reads each item once per plan: a plan asks of an entity more than once
 * (whether we created it, its newest event; a family once per scope campaign), and a user scope
 * lists every user's item before it asks of any one of them.
 */
import { describe, expect, it } from 'vitest';
import { familyKey, userKey } from '../../../lambdas/core/ledger/entity-key';
import { eventVersion } from '../../../lambdas/core/ledger/event-version';
import { ENTITY_KINDS } from '../../../lambdas/entities';
import type { KnownUser } from '../../../lambdas/entities/user/known';
import { type LedgerItems, LedgerItemView } from '../../../lambdas/reconcile/ledger-item-view';

const REGION = 'eu-central-1';
const CREATED_AT = Date.parse('2026-11-20T08:00:00.000Z');
const v = eventVersion(CREATED_AT, 'add', 'f'.repeat(16));
const DELETED_AT = Date.parse('2026-11-21T08:00:00.000Z');

const family = (clientId: string, campaign: string) => ({
  schema: ENTITY_KINDS['record-family'].parts.schema,
  kind: 'record-family',
  id: { region: REGION, clientId },
  events: [
    {
      key: 'k1',
      v: eventVersion(DELETED_AT, 'delete', 'e'.repeat(16)),
      action: 'delete-campaign-record',
      op: { kind: 'delete', campaign: 'Other' },
    },
  ],
  known: {
    places: { [campaign]: { record: { origin: { kind: 'ours', born: v }, at: v, fields: {} } } },
    base: {},
    written: [campaign],
  },
});

const user = (loginUserId: string, origin: 'ours' | 'outside') => ({
  schema: ENTITY_KINDS.user.parts.schema,
  kind: 'user',
  id: { loginUserId },
  events: [],
  known: {
    place: { user: origin === 'ours' ? { origin, born: v, at: v } : { origin } },
    base: { stage: 'unseen' },
  } satisfies KnownUser,
});

/** Items in memory, counting the reads of each key. */
const counted = (items: ReadonlyMap<string, unknown>) => {
  const reads = new Map<string, number>();
  const ledger: LedgerItems = {
    read: async (key) => {
      reads.set(key, (reads.get(key) ?? 0) + 1);
      return structuredClone(items.get(key));
    },
    users: async function* () {
      for (const [key, item] of items) {
        if (key.startsWith('user#')) yield { key, item: structuredClone(item) };
      }
    },
  };
  return { ledger, reads };
};

describe('ledger item view: one read per item', () => {
  it('answers every question about a family from one read of its item', async () => {
    // Prepare: a family created by us in Leads, its newest event a delete in Other.
    const key = familyKey(REGION, 'R-1');
    const { ledger, reads } = counted(new Map([[key, family('R-1', 'Leads')]]));
    const view = new LedgerItemView({ items: ledger });
    const ref = { kind: 'record', region: REGION, clientId: 'R-1' } as const;

    // Act: concurrently, as the plan's workers ask.
    const [inLeads, inOther, newest] = await Promise.all([
      view.createdByUs({ ...ref, campaign: 'Leads' }),
      view.createdByUs({ ...ref, campaign: 'Other' }),
      view.newestEventAt(ref),
    ]);

    // Assess
    expect([inLeads, inOther, newest]).toEqual([true, false, DELETED_AT]);
    expect(reads.get(key)).toBe(1);
  });

  it('answers for users from their listing, reading no item, including users without one', async () => {
    // Prepare: u-ours created by us, u-theirs made outside the integration.
    const { ledger, reads } = counted(
      new Map([
        [userKey('u-ours'), user('u-ours', 'ours')],
        [userKey('u-theirs'), user('u-theirs', 'outside')],
      ]),
    );
    const view = new LedgerItemView({ items: ledger });

    // Act
    const listed: string[] = [];
    for await (const id of view.createdUsers()) listed.push(id);
    const answers = await Promise.all(
      ['u-ours', 'u-theirs', 'u-unknown'].map((loginUserId) =>
        view.createdByUs({ kind: 'user', loginUserId }),
      ),
    );
    const newest = await view.newestEventAt({ kind: 'user', loginUserId: 'u-unknown' });

    // Assess
    expect(listed).toEqual(['u-ours']);
    expect(answers).toEqual([true, false, false]);
    expect(newest).toBeUndefined();
    expect(reads.size).toBe(0);
  });

  it('reads again after a failed read, so a retry is not answered by the failure', async () => {
    // Prepare: the first read fails.
    let calls = 0;
    const view = new LedgerItemView({
      items: {
        read: async () => {
          calls += 1;
          if (calls === 1) throw new Error('throttled');
          return family('R-1', 'Leads');
        },
        users: async function* () {},
      },
    });
    const placed = { kind: 'record', region: REGION, clientId: 'R-1', campaign: 'Leads' } as const;

    // Act
    const first = await view.createdByUs(placed).catch((error: Error) => error.message);
    const second = await view.createdByUs(placed);

    // Assess
    expect([first, second, calls]).toEqual(['throttled', true, 2]);
  });

  it.each([
    ['read by key', 'record'],
    ['listed by the users scan', 'user'],
  ] as const)('names an item %s that does not parse, and stops the plan', async (_how, kind) => {
    // Prepare: an item of this schema version whose events are not a list.
    const broken = (id: object) => ({
      schema: ENTITY_KINDS[kind === 'user' ? 'user' : 'record-family'].parts.schema,
      kind: kind === 'user' ? 'user' : 'record-family',
      id,
      events: 'x',
      known: {},
    });
    const view = new LedgerItemView({
      items: {
        read: async () => broken({ region: REGION, clientId: 'R-1' }),
        users: async function* () {
          yield { key: userKey('u-1'), item: broken({ loginUserId: 'u-1' }) };
        },
      },
    });

    // Act
    const attempt =
      kind === 'user'
        ? async () => {
            for await (const _ of view.createdUsers()) {
              // listing is the act
            }
          }
        : () =>
            view.createdByUs({
              kind: 'record',
              region: REGION,
              clientId: 'R-1',
              campaign: 'Leads',
            });

    // Assess
    const key = kind === 'user' ? userKey('u-1') : familyKey(REGION, 'R-1');
    await expect(attempt()).rejects.toThrow(`the ledger item ${key} does not parse (item.events`);
  });
});
