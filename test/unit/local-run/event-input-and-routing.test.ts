import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeEvent } from '../../../local/in-memory/event-rules';
import { toDeliveredEvent } from '../../../local/run/delivered-event';
import {
  EventInputError,
  loadScenario,
  readEventFile,
  toInputEvent,
} from '../../../local/run/event-input';
import { runSettingsFrom } from '../../../local/run/run-settings';

const tempDir = (): string => mkdtempSync(path.join(tmpdir(), 'local-run-'));

describe('event formats', () => {
  it.each([
    {
      format: 'an EventBridge event, keeping its envelope fields',
      raw: {
        id: 'evt-1',
        source: 'crm',
        'detail-type': 'add-user',
        detail: { correlationId: 'c-1' },
      },
      index: 0,
      expected: {
        format: 'eventbridge',
        source: 'crm',
        detailType: 'add-user',
        detail: { correlationId: 'c-1' },
        envelope: { id: 'evt-1' },
      },
    },
    {
      format: 'a PutEvents entry, decoding its Detail string',
      raw: {
        Source: 'hr',
        DetailType: 'delete-user',
        Detail: '{"loginUserId":"a@example.com"}',
      },
      index: 3,
      expected: {
        format: 'put-events',
        source: 'hr',
        detailType: 'delete-user',
        detail: { loginUserId: 'a@example.com' },
      },
    },
  ])('reads $format', ({ raw, index, expected }) => {
    // Act
    const event = toInputEvent(raw, 'f.json', index);

    // Assess
    expect(event).toMatchObject(expected);
  });

  it.each([
    [
      { source: 'crm', 'detail-type': 'add-user', detail: 'text' },
      /"detail" must be a JSON object/,
    ],
    [{ Source: 'hr', DetailType: 'add-user', Detail: '{not json' }, /PutEvents would reject it/],
    [{ 'detail-type': 'add-user', detail: {} }, /"source" must be a non-empty string/],
    [{ hello: 'world' }, /neither an EventBridge event .* nor a PutEvents entry/],
  ])('names the file and position of an unusable event %#', (raw, message) => {
    // Prepare
    const file = 'events.json';

    // Act
    const read = () => toInputEvent(raw, file, 4);

    // Assess
    expect(read).toThrow(EventInputError);
    expect(read).toThrow(/^events\.json\[4\]: /);
    expect(read).toThrow(message);
  });

  it('reads .jsonl files one event per line, skipping blank lines', () => {
    // Prepare
    const dir = tempDir();
    const file = path.join(dir, 'events.jsonl');
    writeFileSync(
      file,
      '{"source":"hr","detail-type":"add-user","detail":{}}\n\n{"Source":"hr","DetailType":"delete-user","Detail":"{}"}\n',
    );

    // Act
    const events = readEventFile(file, 'events.jsonl');

    // Assess
    expect(events.map((e) => [e.index, e.detailType])).toEqual([
      [0, 'add-user'],
      [1, 'delete-user'],
    ]);
  });

  it.each([
    [
      'events.json',
      JSON.stringify([
        { hello: 'world' },
        { source: 'hr', 'detail-type': 'add-user', detail: {} },
        { source: 'hr', 'detail-type': '', detail: {} },
      ]),
      ['events.json[0]: neither an EventBridge event', 'events.json[2]: "detail-type" must be'],
    ],
    [
      'events.jsonl',
      '{"source":"hr","detail-type":"add-user","detail":{}}\n{not json\n\n{"hello":"world"}\n',
      ['events.jsonl:2: not valid JSON', 'events.jsonl:4: neither an EventBridge event'],
    ],
  ])('reports every bad entry of %s at once, with its index or line', (name, content, parts) => {
    // Prepare
    const file = path.join(tempDir(), name);
    writeFileSync(file, content);

    // Act
    const read = () => readEventFile(file, name);

    // Assess
    expect(read).toThrow(EventInputError);
    expect(read).toThrow(`${name}: 2 bad entries, nothing was run`);
    for (const part of parts) expect(read).toThrow(part);
  });

  it('reports the bad entries of every file of a folder and of its expectations at once', () => {
    // Prepare
    const dir = tempDir();
    const good = { source: 'hr', 'detail-type': 'add-user', detail: { correlationId: 'ok' } };
    writeFileSync(path.join(dir, '01-first.json'), JSON.stringify([good, { hello: 'world' }]));
    writeFileSync(path.join(dir, '02-second.jsonl'), `${JSON.stringify(good)}\n{not json\n`);
    writeFileSync(path.join(dir, 'expected-outcomes.json'), JSON.stringify({ ok: 7 }));

    // Act
    const load = () => loadScenario(dir, dir);

    // Assess
    expect(load).toThrow(EventInputError);
    expect(load).toThrow('3 bad entries, nothing was run');
    expect(load).toThrow('01-first.json[1]: neither an EventBridge event');
    expect(load).toThrow('02-second.jsonl:2: not valid JSON');
    expect(load).toThrow('expected-outcomes.json: the outcome of "ok" must be a code');
  });

  it('loads a folder as phases in file-name order, with its seed and expectations', () => {
    // Prepare
    const dir = tempDir();
    const event = (id: string) => ({
      source: 'hr',
      'detail-type': 'add-user',
      detail: { correlationId: id },
    });
    writeFileSync(path.join(dir, '10-later.json'), JSON.stringify([event('b')]));
    writeFileSync(path.join(dir, '02-first.json'), JSON.stringify([event('a')]));
    writeFileSync(path.join(dir, 'notes.txt'), 'ignored');
    writeFileSync(
      path.join(dir, 'seed.json'),
      JSON.stringify({
        users: [
          {
            loginUserId: 's@example.com',
            firstName: 'S',
            lastName: 'T',
            userTemplateName: 'Agent',
          },
        ],
      }),
    );
    writeFileSync(
      path.join(dir, 'expected-outcomes.json'),
      JSON.stringify({ $comment: 'ignored', a: 'SUCCESS', b: 'ALREADY_EXISTS' }),
    );

    // Act
    const scenario = loadScenario(dir, dir);

    // Assess
    expect(scenario.phases.map((p) => p.file)).toEqual(['02-first.json', '10-later.json']);
    expect(scenario.seed.users.map((u) => u.loginUserId)).toEqual(['s@example.com']);
    expect([...(scenario.expectations ?? new Map())]).toEqual([
      ['a', 'SUCCESS'],
      ['b', 'ALREADY_EXISTS'],
    ]);
    expect(scenario.expectationsOrigin).toBe('expected-outcomes.json');
  });

  it('loads a single file as one phase without expectations', () => {
    // Prepare
    const dir = tempDir();
    const file = path.join(dir, 'mine.json');
    writeFileSync(file, JSON.stringify({ source: 'hr', 'detail-type': 'add-user', detail: {} }));

    // Act
    const scenario = loadScenario('mine.json', dir);

    // Assess
    expect(scenario.phases).toHaveLength(1);
    expect(scenario.phases[0]?.events).toHaveLength(1);
    expect(scenario.expectations).toBeUndefined();
  });

  it('says clearly when the path does not exist', () => {
    // Prepare
    const dir = tempDir();

    // Act
    const load = () => loadScenario('missing.json', dir);

    // Assess
    expect(load).toThrow('missing.json: no such file or folder');
  });
});

describe('routing like the EventBridge rules', () => {
  const settings = runSettingsFrom(
    {
      allowedSources: ['crm', 'hr'],
      actions: {
        'add-user': { allowedSources: ['hr'] },
        'delete-user': { enabled: false },
      },
    },
    'test config',
  );

  it('routes by detail-type to the action whose rule allows the source', () => {
    // Prepare
    const event = { source: 'hr', detailType: 'add-user' };

    // Act
    const decision = routeEvent(event, settings.actions);

    // Assess
    expect(decision).toEqual({ routed: true, action: 'add-user' });
  });

  it.each([
    [{ source: 'crm', detailType: 'update-lead' }, 'no rule matches detail-type "update-lead"'],
    [
      { source: 'crm', detailType: 'add-user' },
      'source "crm" is not allowed for add-user (allowed: hr)',
    ],
    [
      { source: 'hr', detailType: 'delete-user' },
      'delete-user is disabled in the config (no rule)',
    ],
    [
      { source: 'marketing', detailType: 'search-campaign-records' },
      'source "marketing" is not allowed',
    ],
  ])('reports an event no rule matches with the reason %#', (event, reason) => {
    // Prepare
    const actions = settings.actions;

    // Act
    const decision = routeEvent(event, actions);

    // Assess
    expect(decision.routed).toBe(false);
    expect(decision.routed ? '' : decision.reason).toContain(reason);
  });

  it('falls back to the sources crm and hr without a config', () => {
    // Prepare
    const defaults = runSettingsFrom({}, 'built-in defaults');

    // Act
    const sources = defaults.actions['add-user'].allowedSources;

    // Assess
    expect(sources).toEqual(['crm', 'hr']);
    expect(defaults.actions['add-user']).toMatchObject({
      batchSize: 10,
      // Derived from the default 24 h retry window.
      maxReceiveCount: 220,
      visibilityTimeoutSeconds: 180,
    });
  });

  it('delivers the event with the envelope EventBridge adds', () => {
    // Prepare
    const input = toInputEvent(
      { source: 'crm', 'detail-type': 'delete-campaign-record', detail: { campaignName: 'A' } },
      'f.json',
      0,
    );

    // Act
    const delivered = toDeliveredEvent(input, {
      region: 'eu-central-1',
      account: '000000000000',
      now: () => 0,
    });

    // Assess
    expect(delivered).toEqual({
      version: '0',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      'detail-type': 'delete-campaign-record',
      source: 'crm',
      account: '000000000000',
      time: '1970-01-01T00:00:00Z',
      region: 'eu-central-1',
      resources: [],
      detail: { campaignName: 'A' },
    });
  });
});
