/**
 * The drift `npm start -- --reconcile` seeds, and the snapshot exports it then reconciles.
 * Some entities come from the integration's own events (so the ledger knows them as ours),
 * others are made by hand on the platform; then the exports are what HR and CRM say now.
 */
import { createHash } from 'node:crypto';
import type { RunningSimulator } from '../simulator';
import { recordByClientId } from '../simulator/state';
import type { InputEvent, Phase, Scenario } from './event-input';

/** When HR and CRM took their exports: every repair is stamped with it. */
export const EXPORTED_AT = '2026-11-25T06:00:00.000Z';
/** Before the export: the integration's own history. */
const EARLIER = '2026-11-20T08:00:00.000Z';
/** After the export: a live update that the export must not undo. */
const LATER = '2026-11-25T12:00:00.000Z';

export const USERS_SCOPE = 'hr-agents';
export const RECORDS_SCOPE = 'crm-renewals';
export const SMALL_CAMPAIGN = 'Spring-Renewals';
/** An intake-file campaign of more than 1000 records: its sweep must split. */
export const BIG_CAMPAIGN = 'Bulk-Intake';
export const BIG_CAMPAIGN_SIZE = 1200;

const HR = 'com.examplecorp.hr';
const CRM = 'com.examplecorp.crm';

const event = (
  index: number,
  source: string,
  detailType: string,
  detail: Record<string, unknown>,
): InputEvent => ({
  file: 'reconcile: the integration before the export',
  index,
  format: 'eventbridge',
  source,
  detailType,
  detail,
  envelope: {},
});

const user = (login: string, first: string, last: string) => ({
  loginUserId: `${login}@example.com`,
  firstName: first,
  lastName: last,
  userTemplateName: 'Agent-Standard',
});

const lead = (clientId: string, name: string, phone: string) => [
  { key: 'CrmId', value: clientId },
  { key: 'Name', value: name },
  { key: 'mobilePhone', value: phone },
];

/** The integration's own events before the export, and one live update after it. */
export const seedScenario = (): Scenario => {
  const record = (clientId: string, name: string, phone: string, at = EARLIER) => ({
    correlationId: `seed-${clientId}-${at.slice(0, 10)}`,
    occurredAt: at,
    campaignName: SMALL_CAMPAIGN,
    clientId,
    previewRecordData: lead(clientId, name, phone),
  });
  const events: InputEvent[] = [
    event(0, HR, 'add-user', {
      correlationId: 'seed-una',
      occurredAt: EARLIER,
      ...user('una.stays', 'Una', 'Stays'),
    }),
    event(1, HR, 'add-user', {
      correlationId: 'seed-leo',
      occurredAt: EARLIER,
      ...user('leo.leaver', 'Leo', 'Leaver'),
    }),
    event(2, CRM, 'add-or-update-campaign-record', record('C-2001', 'Ada Edited', '+12025550201')),
    event(3, CRM, 'add-or-update-campaign-record', record('C-2002', 'Bo Extra', '+12025550202')),
    event(4, CRM, 'add-or-update-campaign-record', record('C-2003', 'Cy Same', '+12025550203')),
    event(5, CRM, 'add-or-update-campaign-record', record('C-2005', 'Di Before', '+12025550205')),
  ];
  const later: InputEvent[] = [
    event(
      6,
      CRM,
      'add-or-update-campaign-record',
      record('C-2005', 'Di Live', '+12025550215', LATER),
    ),
  ];
  const phases: Phase[] = [
    { file: 'reconcile: the integration before the export', events },
    {
      file: 'reconcile: a live update after the export',
      events: later.map((e) => ({
        ...e,
        file: 'reconcile: a live update after the export',
        index: 0,
      })),
    },
  ];
  return {
    origin: 'reconcile drift (built in)',
    phases,
    seed: { users: [] },
    expectations: undefined,
  };
};

/** A person changes one data value in the platform's own UI: same record, same id, new value. */
export const editByHand = (
  simulator: RunningSimulator,
  campaignName: string,
  clientId: string,
  key: string,
  value: string,
): void => {
  const { state } = simulator;
  const campaign = state.campaign(campaignName);
  const record = campaign === undefined ? undefined : recordByClientId(campaign, clientId);
  if (campaign === undefined || record === undefined)
    throw new Error(`no record ${clientId} in ${campaignName}`);
  state.removeRecord(campaign, record);
  state.putRecord({
    campaignName,
    clientId,
    previewRecordID: record.previewRecordID,
    createdTime: record.createdTime,
    previewRecordData: record.data.map((item) => (item.key === key ? { ...item, value } : item)),
  });
};

/** What was done on the platform by hand, outside the integration. */
export const seedByHand = (simulator: RunningSimulator): string[] => {
  const { state } = simulator;
  state.addUser({ ...user('ursula.unmanaged', 'Ursula', 'Unmanaged') });
  state.addUser({ ...user('sam.supervisor', 'Sam', 'Supervisor'), userTemplateName: 'Supervisor' });
  state.putRecord({
    campaignName: SMALL_CAMPAIGN,
    clientId: 'C-2900',
    previewRecordData: [
      { key: 'Id', value: 'C-2900' },
      ...lead('C-2900', 'Hand Made', '+12025550290'),
    ],
  });
  editByHand(simulator, SMALL_CAMPAIGN, 'C-2001', 'Name', 'Ada Typo');
  for (let n = 1; n <= BIG_CAMPAIGN_SIZE; n += 1) {
    const clientId = bigId(n);
    state.putRecord({
      campaignName: BIG_CAMPAIGN,
      clientId,
      // As an intake file loads it: the clientId column first, under the clientIdFieldName.
      previewRecordData: [
        { key: 'Id', value: clientId },
        ...lead(clientId, n === 42 ? 'Hand Edited' : `Lead ${n}`, phone(n)),
      ],
    });
  }
  return [
    '2 users made by hand (ursula.unmanaged, sam.supervisor)',
    `1 record made by hand (${SMALL_CAMPAIGN} C-2900), 1 record edited by hand (C-2001)`,
    `${BIG_CAMPAIGN}: ${BIG_CAMPAIGN_SIZE} records from an intake file, one of them edited by hand (B-0042)`,
  ];
};

const bigId = (n: number) => `B-${String(n).padStart(4, '0')}`;
const phone = (n: number) => `+1202555${String(n).padStart(4, '0')}`;

const csvCell = (value: string) =>
  /[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
const csv = (rows: readonly (readonly string[])[]) =>
  `${rows.map((r) => r.map(csvCell).join(',')).join('\n')}\n`;

export interface ExportFile {
  readonly name: string;
  readonly text: string;
  readonly manifestName: string;
  readonly manifest: string;
}

const withManifest = (
  name: string,
  scope: string,
  kind: 'users' | 'records',
  text: string,
  rows: number,
): ExportFile => ({
  name,
  text,
  manifestName: `${name}.manifest.json`,
  manifest: `${JSON.stringify(
    {
      kind,
      scope,
      file: name,
      exportedAt: EXPORTED_AT,
      rowCount: rows,
      sha256: createHash('sha256').update(text).digest('hex'),
    },
    null,
    2,
  )}\n`,
});

/** What HR and CRM say at EXPORTED_AT. */
export const exportsNow = (): ExportFile[] => {
  const roster = [
    ['loginUserId', 'firstName', 'lastName', 'userTemplateName', 'status'],
    ['una.stays@example.com', 'Una', 'Stays', 'Agent-Standard', 'active'],
    ['leo.leaver@example.com', 'Leo', 'Leaver', 'Agent-Standard', 'terminated'],
    ['nina.new@example.com', 'Nina', 'New', 'Agent-Standard', 'active'],
    ['ursula.unmanaged@example.com', 'Ursula', 'Unmanaged', 'Agent-Standard', 'terminated'],
    ['sam.supervisor@example.com', 'Sam', 'Supervisor', 'Supervisor', 'active'],
  ];
  const records = [
    ['campaignName', 'clientId', 'data.CrmId', 'data.Name', 'data.mobilePhone'],
    [SMALL_CAMPAIGN, 'C-2001', 'C-2001', 'Ada Edited', '+12025550201'],
    [SMALL_CAMPAIGN, 'C-2003', 'C-2003', 'Cy Same', '+12025550203'],
    [SMALL_CAMPAIGN, 'C-2004', 'C-2004', 'Eve Missing', '+12025550204'],
    [SMALL_CAMPAIGN, 'C-2005', 'C-2005', 'Di Before', '+12025550205'],
    ...Array.from({ length: BIG_CAMPAIGN_SIZE }, (_, i) => [
      BIG_CAMPAIGN,
      bigId(i + 1),
      bigId(i + 1),
      `Lead ${i + 1}`,
      phone(i + 1),
    ]),
  ];
  return [
    withManifest('hr-roster.csv', USERS_SCOPE, 'users', csv(roster), roster.length - 1),
    withManifest('crm-renewals.csv', RECORDS_SCOPE, 'records', csv(records), records.length - 1),
  ];
};
