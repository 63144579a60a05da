/**
 * A record's data against what a message sends: the one comparison the live path's steps (reading a
 * record back) and reconciliation (a record against its export row) both use, so the two can no
 * longer disagree on a display order or on the item an add stores under the clientId field name.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CampaignRecord } from '../../../lambdas/core/platform/platform-responses';
import { observedValues } from '../../../lambdas/entities/record-family/read-step';
import {
  type DataItem,
  dataHash,
  differingKeys,
} from '../../../lambdas/entities/record-family/record-data';
import { differingFields } from '../../../lambdas/reconcile/plan-records';
import type { RecordRow } from '../../../lambdas/reconcile/snapshot';

const CLIENT_ID = 'C-1';

const record = (items: readonly DataItem[]): CampaignRecord => ({
  previewRecordID: 'p-1',
  clientId: CLIENT_ID,
  preferredAgent: null,
  skillQueue: 'Sales',
  createdTime: '2026-11-24 08:00:00.000',
  lastUpdatedTime: '2026-11-24 08:20:00.000',
  nextEarliestWorkTime: null,
  workedState: 'NOTWORKED',
  workAttempts: 0,
  lastAttemptAgent: null,
  lastAttemptTime: null,
  previewRecordData: items,
});

const row = (items: readonly DataItem[], clientIdFieldName?: string): RecordRow => ({
  line: 1,
  region: 'eu-central-1',
  campaignName: 'Leads',
  clientId: CLIENT_ID,
  message: {
    campaignName: 'Leads',
    clientId: CLIENT_ID,
    ...(clientIdFieldName === undefined ? {} : { clientIdFieldName }),
    previewRecordData: [...items],
  } as RecordRow['message'],
});

/** The live path's answer: the record read back holds the data of the event that sent `items`. */
const liveHolds = (held: readonly DataItem[], items: readonly DataItem[], idName?: string) =>
  observedValues(record(held), [
    {
      key: 'e@1',
      v: '1',
      action: 'add-or-update-campaign-record',
      op: {
        kind: 'upsert',
        campaign: 'Leads',
        items,
        ...(idName === undefined ? {} : { clientIdFieldName: idName }),
      },
    },
  ]).values.data === dataHash(items);

/** Items written `key=value`, or `key=value@displayOrder`. */
const items = (...written: string[]): DataItem[] =>
  written.map((item) => {
    const [, key = '', value = '', order] = /^([^=]*)=([^@]*)(?:@(\d+))?$/.exec(item) ?? [];
    return order === undefined ? { key, value } : { key, value, displayOrder: Number(order) };
  });

/** Reconciliation's answer: the record is in sync with its row (an export carrying every key). */
const reconcileHolds = (held: readonly DataItem[], items: readonly DataItem[], idName?: string) =>
  differingFields(
    record(held),
    row(items, idName),
    new Set([...held, ...items].map((item) => item.key)),
  ).length === 0;

describe('whether a record holds the data a message sends', () => {
  it.each<[string, DataItem[], DataItem[], string | undefined, boolean]>([
    [
      'the same items, the platform numbering those sent without a display order',
      items('Name=Ada@1', 'City=Oslo@2'),
      items('Name=Ada', 'City=Oslo'),
      undefined,
      true,
    ],
    [
      'another display order than the one sent',
      items('Name=Ada@2'),
      items('Name=Ada@1'),
      undefined,
      false,
    ],
    [
      'the items in another order (the display order is displayOrder)',
      items('City=Oslo@2', 'Name=Ada@1'),
      items('Name=Ada', 'City=Oslo'),
      undefined,
      true,
    ],
    [
      'the clientId item an add stores under the default name',
      items(`Id=${CLIENT_ID}@1`, 'Name=Ada@2'),
      items('Name=Ada'),
      undefined,
      true,
    ],
    [
      'the clientId item under the name the message sets',
      items(`Ref=${CLIENT_ID}@1`, 'Name=Ada@2'),
      items('Name=Ada'),
      'Ref',
      true,
    ],
    [
      'an item under the clientId field name holding another value (not the platform’s own)',
      items('Id=someone else@1', 'Name=Ada@2'),
      items('Name=Ada'),
      undefined,
      false,
    ],
    ['another value', items('Name=Ada B@1'), items('Name=Ada'), undefined, false],
    [
      'an item the message does not send',
      items('Name=Ada@1', 'City=Oslo@2'),
      items('Name=Ada'),
      undefined,
      false,
    ],
  ])('%s: the live path and reconciliation agree', (_name, held, items, idName, holds) => {
    // Act, Assess
    expect(liveHolds(held, items, idName)).toBe(holds);
    expect(reconcileHolds(held, items, idName)).toBe(holds);
  });

  it('the two agree on any record and any message', () => {
    const key = fc.constantFrom('Id', 'Ref', 'Name', 'City', 'Phone');
    const value = fc.constantFrom(CLIENT_ID, 'a', 'b');
    const order = fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined });
    const items = fc.uniqueArray(
      fc
        .record({ key, value, displayOrder: order })
        .map(({ displayOrder, ...item }) =>
          displayOrder === undefined ? item : { ...item, displayOrder },
        ),
      { selector: (item) => item.key, maxLength: 4 },
    );
    fc.assert(
      fc.property(items, items, fc.constantFrom(undefined, 'Ref'), (held, sent, idName) => {
        // A message never sends the key its clientId is stored under (the contract refuses it).
        const wanted = sent.filter((item) => item.key !== (idName ?? 'Id'));
        expect(liveHolds(held, wanted, idName)).toBe(reconcileHolds(held, wanted, idName));
      }),
    );
  });

  it('names the keys that differ', () => {
    // Act
    const keys = differingKeys(
      record([
        { key: 'Name', value: 'Ada', displayOrder: 1 },
        { key: 'Kept', value: 'x', displayOrder: 2 },
        { key: 'Gone', value: 'y', displayOrder: 3 },
      ]),
      [
        { key: 'Name', value: 'Ada', displayOrder: 2 },
        { key: 'City', value: 'Oslo' },
      ],
      new Set(['Id']),
      (k) => k !== 'Kept',
    );

    // Assess
    expect(keys).toEqual(['City', 'Gone', 'Name']);
  });
});

describe("a data list's identity, as the ledger keeps it", () => {
  it('is what the ledger persisted before display orders counted, for a list without them', () => {
    // Prepare
    const items = [
      { key: 'Name', value: 'Ada' },
      { key: 'City', value: 'Oslo' },
    ];
    const persisted = createHash('sha256')
      .update(JSON.stringify(items.map((item) => [item.key, item.value])))
      .digest('hex')
      .slice(0, 32);

    // Act, Assess
    expect(dataHash(items)).toBe(persisted);
  });

  it('tells two lists apart that differ only in a display order', () => {
    expect(dataHash([{ key: 'Name', value: 'Ada', displayOrder: 1 }])).not.toBe(
      dataHash([{ key: 'Name', value: 'Ada', displayOrder: 2 }]),
    );
  });
});
