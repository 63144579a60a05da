/**
 * The fault matrix's workload: over a thousand messages of all eight actions in four phases
 * (each drained before the next, as a producer's batches would be), generated deterministically.
 * Every record and user gets several messages, many of them in the same phase (add then update
 * then change status, two status changes, an update before a move and a status change after it,
 * a status change before a delete, a delete before a re-add; users join and leave, leave and
 * join again, or join twice), some re-sent as exact copies. Each message carries `occurredAt`,
 * distinct and increasing in the order the producer sent them; each phase is shuffled, so an
 * entity's messages arrive in any order and the entity ledger must put them back in order.
 *
 * Every message says what must become of it: a write ends applied (or knowingly skipped: stale,
 * a duplicate) and its effect is judged on the final state against the model; a read publishes
 * its result; a refused one becomes the dead letter it names.
 *
 * Personal data (names, e-mails, record values) all contain the marker `piix` and phone numbers
 * start with `PHONE_PREFIX`, so a suite can search logs for any of them at once.
 */
import type { ActionName } from '../../../lambdas/actions';
import type { ModelEvent } from '../../../local/convergence/model';
import { seededRandom } from '../../../local/simulator/faults';

export const PII_MARKER = 'piix';
export const PHONE_PREFIX = '+4915550';

export type Expectation =
  /** Applied, or skipped as STALE_SKIPPED / DUPLICATE / NO_EFFECT; the model checks its effect. */
  | { readonly kind: 'write' }
  /** A read: its result event is published with the message's correlation id. */
  | { readonly kind: 'read' }
  /**
   * Refused by design: dead-lettered with this reason. `permanent` at once; `retryable` on the
   * last receive.
   */
  | {
      readonly kind: 'dead-letter';
      readonly errorCategory: 'permanent' | 'retryable';
      readonly errorCode: string;
    };

export interface ScenarioMessage {
  /** Unique per message; the correlationId too, except for a re-sent copy (the original's). */
  readonly id: string;
  /** 1-based. */
  readonly phase: number;
  readonly action: ActionName;
  readonly body: string;
  readonly expect: Expectation;
}

export interface Scenario {
  /** Each phase in the order it is sent (shuffled). */
  readonly phases: readonly (readonly ScenarioMessage[])[];
  readonly messages: readonly ScenarioMessage[];
}

const RECORDS = 240;
const USERS = 48;
const CAMPAIGNS = ['Leads-North', 'Leads-South', 'Leads-East', 'Leads-West'] as const;
const STATES = ['NOTWORKED', 'WORKED', 'COMPLETED', 'REMOVED'] as const;
/** 2030-01-01T00:00:00Z, a time to work the record again after. */
const LATER = 1_893_456_000_000;
/** `occurredAt` of the first message; each next one is a second later. */
const FIRST_EVENT = Date.parse('2026-07-01T06:00:00.000Z');
const SHUFFLE_SEED = 20_260_701;

const campaignOf = (record: number): string => CAMPAIGNS[record % CAMPAIGNS.length] ?? 'Leads';
const destinationOf = (record: number): string => `${campaignOf(record)}-Callbacks`;
const clientIdOf = (record: number): string => `c-${String(record).padStart(4, '0')}`;
const userOf = (user: number): string => `${PII_MARKER}.user${user}@corp.example`;
const phoneOf = (record: number): string => `${PHONE_PREFIX}${String(record).padStart(5, '0')}`;

const recordData = (record: number, version: number) => [
  { key: 'Name', value: `${PII_MARKER} Person ${record}`, displayOrder: 1 },
  { key: 'MobilePhone', value: phoneOf(record), displayOrder: 2 },
  { key: 'Email', value: `${PII_MARKER}.${record}@mail.example`, displayOrder: 3 },
  { key: 'Note', value: `${PII_MARKER} note ${record} v${version}` },
  ...(record % 5 === 0 ? [{ key: 'ItemTimeZone', value: 'Europe/Berlin' }] : []),
  ...(record % 7 === 0 ? [{ key: 'Profile_link', value: `https://crm.example/p/${record}` }] : []),
];

/** The record (by clientId) or user (by login id) a message is about, if it names one. */
export const entityOf = (message: ScenarioMessage): string | undefined => {
  try {
    const body = JSON.parse(message.body) as { clientId?: unknown; loginUserId?: unknown };
    if (typeof body.clientId === 'string') return `record ${body.clientId}`;
    if (typeof body.loginUserId === 'string') return `user ${body.loginUserId}`;
  } catch {
    // Not JSON: names nothing.
  }
  return undefined;
};

/** The messages as the model sees them (it leaves out the invalid ones and the reads itself). */
export const modelEvents = (messages: readonly ScenarioMessage[]): ModelEvent[] =>
  messages.flatMap((m) => {
    try {
      return [{ action: m.action, message: JSON.parse(m.body) as unknown }];
    } catch {
      return [];
    }
  });

const shuffled = <T>(items: readonly T[], random: () => number): T[] => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
};

/** Builds the scenario; the same every time. */
export const buildScenario = (): Scenario => {
  const phases: ScenarioMessage[][] = [[], [], [], []];
  let sequence = 0;
  const WRITE: Expectation = { kind: 'write' };
  const READ: Expectation = { kind: 'read' };
  const refused = (errorCode: string, errorCategory: 'permanent' | 'retryable' = 'permanent') =>
    ({ kind: 'dead-letter', errorCategory, errorCode }) as const;
  const invalid = refused('INVALID_MESSAGE');
  const push = (message: ScenarioMessage): ScenarioMessage => {
    phases[message.phase - 1]?.push(message);
    return message;
  };
  const add = (
    phase: number,
    action: ActionName,
    message: Record<string, unknown> | string,
    expect: Expectation = WRITE,
  ): ScenarioMessage => {
    sequence += 1;
    const id = `m-${String(sequence).padStart(4, '0')}`;
    const occurredAt = new Date(FIRST_EVENT + sequence * 1000).toISOString();
    const body =
      typeof message === 'string'
        ? message
        : JSON.stringify({ correlationId: id, occurredAt, ...message });
    return push({ id, phase, action, body, expect });
  };
  /** The producer sends the same event again: same body, another SQS message. */
  const resend = (original: ScenarioMessage): ScenarioMessage => {
    sequence += 1;
    return push({ ...original, id: `m-${String(sequence).padStart(4, '0')}` });
  };

  const upsert = (phase: number, r: number, version: number, campaign = campaignOf(r)) =>
    add(phase, 'add-or-update-campaign-record', {
      campaignName: campaign,
      clientId: clientIdOf(r),
      previewRecordData: recordData(r, version),
      ...(version % 2 === 0 && r % 3 === 0 ? { preferredAgent: `agent-${r % 11}` } : {}),
    });
  const status = (phase: number, r: number, state: string, campaign = campaignOf(r)) =>
    add(phase, 'change-campaign-record-status', {
      campaignName: campaign,
      clientId: clientIdOf(r),
      previewRecordStateEnum: state,
      ...(state === 'WORKED' ? { nextEarliestWorkTimeUTC: LATER + r * 60_000 } : {}),
      ...(r % 3 === 0 ? { timeZone: 'America/New_York', skillQueue: 'Renewals' } : {}),
      ...(r % 10 === 1 ? { preferredAgent: `agent-${r % 13}` } : {}),
    });
  const remove = (phase: number, r: number, campaign = campaignOf(r)) =>
    add(phase, 'delete-campaign-record', { campaignName: campaign, clientId: clientIdOf(r) });
  const join = (phase: number, u: number) =>
    add(phase, 'add-user', {
      loginUserId: userOf(u),
      firstName: `${PII_MARKER}First${u}`,
      lastName: `${PII_MARKER}Last${u}`,
      primaryEmailAddr: userOf(u),
      userTemplateName: 'Agent',
      createInCloudConnect: u % 2 === 0,
    });
  const leave = (phase: number, u: number) => add(phase, 'delete-user', { loginUserId: userOf(u) });
  const stateOf = (r: number, shift = 0): string => STATES[(r + shift) % STATES.length] ?? 'WORKED';

  const worked = (r: number) => r < 90;
  const restated = (r: number) => r >= 90 && r < 180;
  const moved = (r: number) => r >= 180;

  // Phase 1: records added, a quarter updated and a quarter worked right after (the status
  // change often arrives before its add); some adds re-sent. Users join; some leave again, some
  // come back, some join twice. A few invalid messages.
  const firstAdds = new Map<number, ScenarioMessage>();
  for (let r = 0; r < RECORDS; r += 1) firstAdds.set(r, upsert(1, r, 1));
  for (let r = 0; r < RECORDS; r += 4) upsert(1, r, 2);
  for (let r = 1; r < RECORDS; r += 4) status(1, r, stateOf(r));
  for (let r = 2; r < RECORDS; r += 16) {
    const original = firstAdds.get(r);
    if (original) resend(original);
  }
  for (let u = 0; u < USERS; u += 1) join(1, u);
  for (let u = 0; u < USERS; u += 1) {
    if (u % 4 === 0 || u % 4 === 1) leave(1, u);
    if (u % 4 === 1 || u % 4 === 2) join(1, u);
  }
  add(
    1,
    'add-or-update-campaign-record',
    { campaignName: 'Leads-North', previewRecordData: recordData(9001, 1) },
    invalid,
  );
  add(
    1,
    'add-or-update-campaign-record',
    {
      campaignName: 'Leads-North',
      clientId: 'c-bad-phone',
      previewRecordData: [{ key: 'Phone', value: `${PII_MARKER} not a phone` }],
    },
    invalid,
  );
  add(
    1,
    'add-or-update-campaign-record',
    {
      campaignName: 'Leads-North',
      clientId: 'c-bad-order',
      previewRecordData: [{ key: 'Name', value: `${PII_MARKER} x`, displayOrder: 0 }],
    },
    invalid,
  );
  add(
    1,
    'add-user',
    { loginUserId: userOf(9001), firstName: `${PII_MARKER}F`, userTemplateName: 'Agent' },
    invalid,
  );
  add(
    1,
    'add-or-update-campaign-record',
    `{"campaignName":"Leads-North","clientId":"c-trunc`,
    refused('INVALID_JSON'),
  );
  add(1, 'add-user', '<html>not json</html>', refused('INVALID_JSON'));

  // Phase 2: records 0–89 updated and then worked; 90–179 change status twice (the two may
  // arrive in either order); existence queries. Status changes of records that never existed
  // are retried (their add could still be on its way) until the last receive.
  for (let r = 0; r < RECORDS; r += 1) {
    if (worked(r)) upsert(2, r, 3);
  }
  for (let r = 0; r < RECORDS; r += 1) {
    if (worked(r) || restated(r)) status(2, r, stateOf(r, 1));
  }
  for (let r = 0; r < RECORDS; r += 1) {
    if (restated(r)) status(2, r, stateOf(r, 2));
  }
  for (let u = 0; u < 32; u += 1) {
    add(2, 'query-user-existence', { loginUserId: userOf(u) }, READ);
  }
  for (let r = 0; r < 3; r += 1) {
    add(
      2,
      'change-campaign-record-status',
      {
        campaignName: campaignOf(r),
        clientId: clientIdOf(300 + r),
        previewRecordStateEnum: 'WORKED',
      },
      invalid,
    );
    // Its record never comes: kept in the ledger with no effect (NO_EFFECT), not dead-lettered.
    add(
      2,
      'change-campaign-record-status',
      {
        campaignName: 'Leads-North',
        clientId: `c-unknown-${r}`,
        previewRecordStateEnum: 'COMPLETED',
      },
      { kind: 'write' },
    );
  }

  // Phase 3: records 180–239 move to another campaign; half are updated in their old campaign
  // just before, half worked in the new one just after; searches by id and by criteria.
  for (let r = 0; r < RECORDS; r += 1) {
    if (moved(r) && r % 2 === 0) upsert(3, r, 4);
  }
  for (let r = 0; r < RECORDS; r += 1) {
    if (!moved(r)) continue;
    add(3, 'transfer-campaign-record', {
      campaignName: campaignOf(r),
      clientId: clientIdOf(r),
      transferToCampaign: destinationOf(r),
      ...(r % 4 === 0 ? { skillQueue: 'Callbacks', preferredAgent: '' } : {}),
    });
  }
  for (let r = 0; r < RECORDS; r += 1) {
    if (moved(r) && r % 2 === 1) status(3, r, stateOf(r, 3), destinationOf(r));
  }
  for (let s = 0; s < 60; s += 1) {
    const record = s * 3;
    add(
      3,
      'search-campaign-records',
      s % 2 === 0
        ? { campaignName: campaignOf(record), clientId: clientIdOf(record) }
        : {
            campaignName: campaignOf(record),
            maxRecords: 5,
            previewRecordData: [
              {
                key: 'sys_worked_state',
                value: STATES[s % STATES.length] ?? 'WORKED',
                condition: 'EQUALS',
              },
              { key: 'Name', value: `${PII_MARKER} Person`, condition: 'BEGINSWITH' },
            ],
          },
      READ,
    );
  }
  add(3, 'transfer-campaign-record', { campaignName: 'Leads-North', clientId: 'c-0001' }, invalid);
  add(3, 'search-campaign-records', { campaignName: 'Leads-North', maxRecords: 0 }, invalid);
  add(
    3,
    'search-campaign-records',
    {
      campaignName: 'Leads-North',
      previewRecordData: [{ key: 'Name', value: 'x', condition: 'LIKE' }],
    },
    invalid,
  );

  // Phase 4: records 0–59 worked once more and then deleted; 60–74 deleted and added again
  // (the add's queue is polled first, so the delete usually arrives after it); some moved records
  // deleted where they are now. Users leave, leave and come back, or come back. More queries.
  for (let r = 0; r < 60; r += 1) status(4, r, stateOf(r, 3));
  for (let r = 0; r < 75; r += 1) remove(4, r);
  for (let r = 60; r < 75; r += 1) upsert(4, r, 5);
  for (let r = 180; r < 190; r += 1) remove(4, r, destinationOf(r));
  for (let u = 0; u < USERS; u += 1) {
    if (u % 4 !== 0) leave(4, u);
  }
  for (let u = 0; u < USERS; u += 1) {
    if (u % 4 === 0 || u % 4 === 1) join(4, u);
  }
  for (let u = 32; u < 48; u += 1) {
    add(4, 'query-user-existence', { loginUserId: userOf(u) }, READ);
  }
  add(4, 'delete-campaign-record', { campaignName: 'Leads-North' }, invalid);
  add(4, 'delete-user', { loginUserId: '' }, invalid);
  add(4, 'query-user-existence', { loginUserId: userOf(1), extra: true }, invalid);

  const random = seededRandom(SHUFFLE_SEED);
  const sent = phases.map((phase) => shuffled(phase, random));
  return { phases: sent, messages: sent.flat() };
};
