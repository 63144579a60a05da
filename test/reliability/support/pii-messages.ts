/**
 * Messages of every action carrying recognisable personal data (names, e-mails, a phone
 * number, record values), so a suite can search logs for them. Ids (clientId, campaign names)
 * are not personal data and may be logged.
 */
import type { ActionName } from '../../../lambdas/actions';

/** Values that must never appear in a log line. */
export const PII = {
  firstName: 'Quenbyfirst',
  lastName: 'Zorrowlast',
  fullName: 'Quenby Zorrowlast',
  email: 'quenby.zorrow@pii-marker.example',
  secondaryEmail: 'q.z.private@pii-marker.example',
  agentEmail: 'agent.ulvhild@pii-marker.example',
  phone: '+4915550007788',
  note: 'PII-NOTE-renewal-of-contract-7c2d',
  address: 'PII-ADDR-Hauptstrasse-12b',
} as const;

export const PII_VALUES: readonly string[] = Object.values(PII);

/** One message of `action` full of personal data, for record `n`. */
export const piiMessage = (action: ActionName, n: number): Record<string, unknown> => {
  const correlationId = `pii-${action}-${n}`;
  /** The campaign record the record actions name. */
  const record = { correlationId, campaignName: 'Leads', clientId: `crm-${n}` };
  switch (action) {
    case 'add-or-update-campaign-record':
      return {
        ...record,
        preferredAgent: PII.agentEmail,
        previewRecordData: [
          { key: 'Name', value: PII.fullName },
          { key: 'MobilePhone', value: PII.phone },
          { key: 'Note', value: PII.note },
          { key: 'Address', value: PII.address },
          { key: 'Email', value: PII.email },
        ],
      };
    case 'search-campaign-records':
      return {
        correlationId,
        campaignName: 'Leads',
        previewRecordData: [
          { key: 'Name', value: PII.fullName, condition: 'EQUALS' },
          { key: 'Email', value: PII.email, condition: 'CONTAINS' },
        ],
      };
    case 'change-campaign-record-status':
      return {
        ...record,
        previewRecordStateEnum: 'WORKED',
        nextEarliestWorkTimeUTC: 1_900_000_000_000,
        preferredAgent: PII.agentEmail,
      };
    case 'transfer-campaign-record':
      return { ...record, transferToCampaign: 'Renewals', preferredAgent: PII.agentEmail };
    case 'delete-campaign-record':
      return record;
    case 'add-user':
      return {
        correlationId,
        loginUserId: PII.email,
        firstName: PII.firstName,
        lastName: PII.lastName,
        primaryEmailAddr: PII.email,
        secondaryEmailAddr: PII.secondaryEmail,
        userTemplateName: 'Agent',
        createInCloudConnect: true,
      };
    case 'query-user-existence':
    case 'delete-user':
      return { correlationId, loginUserId: PII.email };
  }
};
