import { describe } from 'vitest';
import { itAccepts, itRefuses, validMessage, without } from './message-fixtures';

// The record locator, timeZone and nextEarliestWorkTimeUTC rules these share with
// change-campaign-record-status are in common-message-rules.test.ts.

describe('transfer-campaign-record message', () => {
  const ACTION = 'transfer-campaign-record';
  const source = String(validMessage(ACTION).campaignName);

  itRefuses(ACTION, [
    [
      'requires transferToCampaign',
      without(validMessage(ACTION), 'transferToCampaign'),
      'transferToCampaign: is required',
    ],
    [
      'refuses a transfer into the campaign the record is already in',
      { ...validMessage(ACTION), transferToCampaign: source },
      'transferToCampaign: must differ from campaignName (the record is already in that campaign)',
    ],
    [
      'refuses a campaign name the ledger cannot key its state by',
      { ...validMessage(ACTION), transferToCampaign: '__proto__' },
      'transferToCampaign: must not be "__proto__" (not a campaign name the ledger can keep)',
    ],
    [
      'refuses it as the campaign the record is in too',
      { ...validMessage(ACTION), campaignName: '__proto__' },
      'campaignName: must not be "__proto__" (not a campaign name the ledger can keep)',
    ],
  ]);

  itAccepts(ACTION, [
    [
      'treats campaign names as case-sensitive when comparing them',
      { ...validMessage(ACTION), transferToCampaign: source.toUpperCase() },
    ],
    [
      'accepts every optional field',
      {
        ...validMessage(ACTION),
        skillQueue: 'Renewals-EN',
        preferredAgent: '',
        nextEarliestWorkTimeUTC: 1_767_225_600_000,
        timeZone: 'America/Argentina/Buenos_Aires',
      },
    ],
  ]);
});
