/**
 * A plan file reads back as written, and a plan that is incomplete, of another version or
 * edited into an invalid repair is refused before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { WORKED_BY_AGENT } from '../../../lambdas/reconcile/delete-gate';
import { parseManifest } from '../../../lambdas/reconcile/manifest';
import type { Plan } from '../../../lambdas/reconcile/plan';
import { parsePlan, serializePlan } from '../../../lambdas/reconcile/plan-file';
import { ADD_USER_REPAIR, usersPlan } from './plan-fixture';

const plan: Plan = usersPlan(1, {
  counts: { create: 1, update: 0, delete: 0, unmanaged: 0, conflict: 0, skipped: 0, 'in-sync': 0 },
  deletes: { count: 0, gate: 25, scopeSize: 1, held: false, heldBecause: [] },
  platformReads: 1,
  entries: [
    {
      entity: 'user:a@example.com',
      category: 'create',
      line: 2,
      repair: ADD_USER_REPAIR,
    },
  ],
});

/** A plan of two user deletes held by a gate of one. */
const held: Plan = {
  ...plan,
  counts: { create: 0, update: 0, delete: 2, unmanaged: 0, conflict: 0, skipped: 0, 'in-sync': 0 },
  deletes: {
    count: 2,
    gate: 1,
    scopeSize: 2,
    held: true,
    heldBecause: ['2 deletes exceed the gate max(1, 0 % of 2) = 1'],
  },
  entries: ['a', 'b'].map((name) => ({
    entity: `user:${name}@example.com`,
    category: 'delete' as const,
    repair: {
      action: 'delete-user' as const,
      message: { loginUserId: `${name}@example.com`, occurredAt: plan.snapshot.exportedAt },
    },
  })),
};

/** One record delete, inside the gate, held because an agent worked the record. */
const worked: Plan = {
  ...held,
  kind: 'records',
  counts: { ...held.counts, delete: 1 },
  deletes: {
    count: 1,
    gate: 100,
    scopeSize: 2,
    held: true,
    heldBecause: ['1 of the deletes is of a record agents have worked'],
  },
  entries: [
    {
      entity: 'record:Leads:R-1',
      category: 'delete',
      reason: WORKED_BY_AGENT,
      repair: {
        action: 'delete-campaign-record',
        message: {
          campaignName: 'Leads',
          region: 'eu-central-1',
          clientId: 'R-1',
          occurredAt: plan.snapshot.exportedAt,
        },
      },
    },
  ],
};

describe('plan file', () => {
  it.each([
    ['the plan it wrote', plan],
    ['a plan whose deletes are held', held],
    ['a plan whose delete of a worked record is held', worked],
  ])('reads back %s', (_name, written) => {
    // Act
    const read = parsePlan(serializePlan(written));

    // Assess
    expect(read).toEqual(written);
  });

  it('reads a file of this version from before a category was added: its count is 0', () => {
    // Prepare: the header's counts lack a key, as an older planner's did before it existed
    const older = serializePlan(plan).replace('"skipped":0,', '');

    // Act
    const read = parsePlan(older);

    // Assess
    expect(read.counts).toEqual(plan.counts);
    expect(read).toEqual(plan);
  });

  it('refuses a header whose missing count would hide entries of that category', () => {
    // Prepare
    const text = serializePlan(plan).replace('"create":1,', '');

    // Act / Assess
    expect(() => parsePlan(text)).toThrow(/counts\.create: the header says 0, the entries hold 1/);
  });

  it.each([
    [
      'an incomplete file',
      (text: string) => text.split('\n')[0] ?? '',
      /holds 0 entries, its header says 1/,
    ],
    [
      'another version',
      (text: string) => text.replace('"version":1', '"version":2'),
      /not a plan file of version 1: version: must be 1/,
    ],
    [
      'a header without its scope',
      (text: string) => text.replace('"scope":"s",', ''),
      /not a plan file of version 1: scope: is required/,
    ],
    [
      'a header with a count that is not a number',
      (text: string) => text.replace('"create":1', '"create":"one"'),
      /not a plan file of version 1: counts\.create: /,
    ],
    [
      'an entry of an unknown category',
      (text: string) => text.replace('"category":"create"', '"category":"upsert"'),
      /line 2 is not a plan entry: category: /,
    ],
    [
      'an edited repair',
      (text: string) => text.replace('"firstName":"A",', ''),
      /line 2: not a valid add-user message: firstName: is required/,
    ],
  ])('refuses %s', (_name, damage, message) => {
    // Act
    const attempt = () => parsePlan(damage(serializePlan(plan)));

    // Assess
    expect(attempt).toThrow(message);
  });
});

describe('plan file header against its entries', () => {
  it.each([
    [
      'a delete dropped with the entry count and its counts left',
      (text: string) =>
        text
          .split('\n')
          .filter((line) => !line.includes('user:b@'))
          .join('\n')
          .replace('"entryCount":2', '"entryCount":1'),
      /counts\.delete: the header says 2, the entries hold 1/,
    ],
    [
      'a delete relabelled as in sync',
      (text: string) => text.replace('"category":"delete"', '"category":"in-sync"'),
      /counts\.delete: the header says 2, the entries hold 1/,
    ],
    [
      'deletes hidden from the header',
      (text: string) => text.replace('"count":2', '"count":0'),
      /deletes\.count: the header says 0, the entries hold 2/,
    ],
    [
      'held deletes released in the header',
      (text: string) =>
        text
          .replace('"held":true', '"held":false')
          .replace(/"heldBecause":\[[^\]]*\]/, '"heldBecause":[]'),
      /deletes\.held: the header says false, yet 2 deletes exceed the gate of 1/,
    ],
    [
      'a delete travelling as an update',
      (text: string) =>
        text
          .replace('"category":"delete"', '"category":"update"')
          .replace('"update":0', '"update":1')
          .replace('"delete":2', '"delete":1')
          .replace('"count":2', '"count":1'),
      /line 2: repair\.action: delete-user in a update entry/,
    ],
    [
      'a repair stamped later than the export',
      (text: string) =>
        text.replace(
          '"occurredAt":"2026-11-25T06:00:00.000Z"}',
          '"occurredAt":"2030-01-01T00:00:00.000Z"}',
        ),
      /line 2: repair\.message\.occurredAt: not the export's time/,
    ],
    [
      'held deletes released and the gate raised',
      (text: string) => text.replace('"held":true', '"held":false').replace('"gate":1', '"gate":5'),
      /deletes\.held: the header says false, with 2 deletes and 1 reason\(s\)/,
    ],
  ])('refuses %s, naming the field', (_name, damage, message) => {
    // Act
    const attempt = () => parsePlan(damage(serializePlan(held)));

    // Assess
    expect(attempt).toThrow(message);
  });
});

describe('plan file with a delete of a worked record', () => {
  it('refuses a header that releases it, naming the field', () => {
    // Prepare: the hold and its reason edited away (the gate alone would let one delete go).
    const text = serializePlan(worked)
      .replace('"held":true', '"held":false')
      .replace(/"heldBecause":\[[^\]]*\]/, '"heldBecause":[]');

    // Act
    const attempt = () => parsePlan(text);

    // Assess
    expect(attempt).toThrow(
      /deletes\.held: the header says false, yet 1 of the deletes is WORKED_BY_AGENT \(a record agents have worked\)/,
    );
    expect(attempt).toThrow(expect.objectContaining({ code: 'PLAN_ALTERED' }));
  });
});

describe('manifest', () => {
  it.each([
    [
      {},
      /kind: .*scope: .*file: .*exportedAt: is required.*rowCount: is required.*sha256: is required/,
    ],
    [
      {
        kind: 'users',
        scope: 's',
        file: 'x.txt',
        exportedAt: '2026-11-25T06:00:00Z',
        rowCount: 1,
        sha256: 'a'.repeat(64),
      },
      /format: is required/,
    ],
    [
      {
        kind: 'users',
        scope: 's',
        file: '../x.csv',
        exportedAt: '2026-11-25T06:00:00Z',
        rowCount: 1,
        sha256: 'a'.repeat(64),
      },
      /file: must be a file beside the manifest/,
    ],
    [
      {
        kind: 'users',
        scope: 's',
        file: 'x.csv',
        exportedAt: 'yesterday',
        rowCount: 1,
        sha256: 'a'.repeat(64),
      },
      /exportedAt: must be an RFC 3339 UTC time/,
    ],
  ])('names every bad field (%#)', (input, message) => {
    // Act
    const attempt = () => parseManifest(JSON.stringify(input));

    // Assess
    expect(attempt).toThrow(message);
  });
});
