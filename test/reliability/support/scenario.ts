/**
 * The fault matrix's workload: over a thousand messages of all eight actions in four phases
 * (each drained before the next, as a producer's batches would be), generated deterministically.
 * Every message says how to check it was applied on the simulator, or which dead letter it
 * must become. Within a phase each record is touched by at most one message, so each message's
 * fate can be read off the simulator's history; the matrix's "several messages per entity"
 * cells cover the opposite (fault-matrix.test.ts).
 *
 * Personal data (names, e-mails, record values) all contain the marker `piix` and phone numbers
 * start with `PHONE_PREFIX`, so a suite can search logs for any of them at once.
 */
import type { ActionName } from '../../../lambdas/actions';
import type { AppliedOperation } from '../../../local/simulator';

export const PII_MARKER = 'piix';
export const PHONE_PREFIX = '+4915550';

export type Expectation =
  | {
      readonly kind: 'write';
      readonly op: AppliedOperation['action'] | 'addOrUpdateCampaignRecord';
      readonly campaignName?: string;
      readonly clientId?: string;
      readonly loginUserId?: string;
    }
  /** A read: its result event is published with the message's correlation id. */
  | { readonly kind: 'read' }
  /** Refused by design: dead-lettered at once with this code. */
  | { readonly kind: 'dead-letter'; readonly errorCode: string };

export interface ScenarioMessage {
  /** Also the message's correlationId when it has one. */
  readonly id: string;
  /** 1-based. */
  readonly phase: number;
  readonly action: ActionName;
  readonly body: string;
  readonly expect: Expectation;
}

export interface Scenario {
  readonly phases: readonly (readonly ScenarioMessage[])[];
  readonly messages: readonly ScenarioMessage[];
}

const RECORDS = 400;
const USERS = 60;
const CAMPAIGNS = ['Leads-North', 'Leads-South', 'Leads-East', 'Leads-West'] as const;
const STATES = ['NOTWORKED', 'WORKED', 'COMPLETED', 'REMOVED'] as const;
/** 2030-01-01T00:00:00Z, a time to work the record again after. */
const LATER = 1_893_456_000_000;

const campaignOf = (record: number): string => CAMPAIGNS[record % CAMPAIGNS.length] ?? 'Leads';
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

/** Builds the scenario; the same every time. */
export const buildScenario = (): Scenario => {
  const phases: ScenarioMessage[][] = [[], [], [], []];
  let sequence = 0;
  const add = (
    phase: number,
    action: ActionName,
    message: Record<string, unknown> | string,
    expect: Expectation,
  ): void => {
    sequence += 1;
    const id = `m-${String(sequence).padStart(4, '0')}`;
    const body =
      typeof message === 'string' ? message : JSON.stringify({ correlationId: id, ...message });
    phases[phase - 1]?.push({ id, phase, action, body, expect });
  };
  const write = (
    op: Extract<Expectation, { kind: 'write' }>['op'],
    fields: Omit<Extract<Expectation, { kind: 'write' }>, 'kind' | 'op'>,
  ): Expectation => ({ kind: 'write', op, ...fields });

  // Phase 1: records added across the campaigns, users added; a few invalid ones.
  for (let r = 0; r < RECORDS; r += 1) {
    add(
      1,
      'add-or-update-campaign-record',
      { campaignName: campaignOf(r), clientId: clientIdOf(r), previewRecordData: recordData(r, 1) },
      write('addOrUpdateCampaignRecord', { campaignName: campaignOf(r), clientId: clientIdOf(r) }),
    );
  }
  for (let u = 0; u < USERS; u += 1) {
    add(
      1,
      'add-user',
      {
        loginUserId: userOf(u),
        firstName: `${PII_MARKER}First${u}`,
        lastName: `${PII_MARKER}Last${u}`,
        primaryEmailAddr: userOf(u),
        userTemplateName: 'Agent',
        createInCloudConnect: u % 2 === 0,
      },
      write('add-user', { loginUserId: userOf(u) }),
    );
  }
  const invalid = { kind: 'dead-letter', errorCode: 'INVALID_MESSAGE' } as const;
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
  add(1, 'add-or-update-campaign-record', `{"campaignName":"Leads-North","clientId":"c-trunc`, {
    kind: 'dead-letter',
    errorCode: 'INVALID_JSON',
  });
  add(1, 'add-user', '<html>not json</html>', { kind: 'dead-letter', errorCode: 'INVALID_JSON' });

  // Phase 2: updates of records 0–149, status changes of 150–299, existence queries.
  for (let r = 0; r < 150; r += 1) {
    add(
      2,
      'add-or-update-campaign-record',
      { campaignName: campaignOf(r), clientId: clientIdOf(r), previewRecordData: recordData(r, 2) },
      write('addOrUpdateCampaignRecord:update', {
        campaignName: campaignOf(r),
        clientId: clientIdOf(r),
      }),
    );
  }
  for (let r = 150; r < 300; r += 1) {
    const state = STATES[r % STATES.length] ?? 'COMPLETED';
    add(
      2,
      'change-campaign-record-status',
      {
        campaignName: campaignOf(r),
        clientId: clientIdOf(r),
        previewRecordStateEnum: state,
        ...(state === 'WORKED' ? { nextEarliestWorkTimeUTC: LATER + r * 60_000 } : {}),
        ...(r % 3 === 0 ? { timeZone: 'America/New_York', skillQueue: 'Renewals' } : {}),
        ...(r % 10 === 1 ? { preferredAgent: `agent-${r % 13}` } : {}),
      },
      write('changeCampaignRecordStatus', { campaignName: campaignOf(r), clientId: clientIdOf(r) }),
    );
  }
  for (let u = 0; u < 40; u += 1) {
    add(2, 'query-user-existence', { loginUserId: userOf(u) }, { kind: 'read' });
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
    add(
      2,
      'change-campaign-record-status',
      {
        campaignName: 'Leads-North',
        clientId: `c-unknown-${r}`,
        previewRecordStateEnum: 'COMPLETED',
      },
      { kind: 'dead-letter', errorCode: 'NORECORDFOUND' },
    );
  }

  // Phase 3: records 300–399 move to another campaign; searches by id and by criteria.
  for (let r = 300; r < 400; r += 1) {
    add(
      3,
      'transfer-campaign-record',
      {
        campaignName: campaignOf(r),
        clientId: clientIdOf(r),
        transferToCampaign: `${campaignOf(r)}-Callbacks`,
        ...(r % 4 === 0 ? { skillQueue: 'Callbacks', preferredAgent: '' } : {}),
      },
      write('transferCampaignRecord', {
        campaignName: `${campaignOf(r)}-Callbacks`,
        clientId: clientIdOf(r),
      }),
    );
  }
  for (let s = 0; s < 80; s += 1) {
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
      { kind: 'read' },
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

  // Phase 4: deletes (updated records and some transferred ones), users leave; more queries.
  for (let r = 0; r < 100; r += 1) {
    add(
      4,
      'delete-campaign-record',
      { campaignName: campaignOf(r), clientId: clientIdOf(r) },
      write('deleteRecordFromCampaign', { campaignName: campaignOf(r), clientId: clientIdOf(r) }),
    );
  }
  for (let r = 300; r < 310; r += 1) {
    const destination = `${campaignOf(r)}-Callbacks`;
    add(
      4,
      'delete-campaign-record',
      { campaignName: destination, clientId: clientIdOf(r) },
      write('deleteRecordFromCampaign', { campaignName: destination, clientId: clientIdOf(r) }),
    );
  }
  for (let u = 0; u < 30; u += 1) {
    add(
      4,
      'delete-user',
      { loginUserId: userOf(u) },
      write('delete-user', { loginUserId: userOf(u) }),
    );
  }
  for (let u = 30; u < 50; u += 1) {
    add(4, 'query-user-existence', { loginUserId: userOf(u) }, { kind: 'read' });
  }
  add(4, 'delete-campaign-record', { campaignName: 'Leads-North' }, invalid);
  add(4, 'delete-user', { loginUserId: '' }, invalid);
  add(4, 'query-user-existence', { loginUserId: userOf(1), extra: true }, invalid);

  return { phases, messages: phases.flat() };
};
