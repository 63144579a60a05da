/**
 * Messages the handler tests send, one builder per message shape, so that a table row and an
 * action's own file build the same message the same way. `extra` overrides or adds fields.
 * The values are fixed test data.
 */

type Extra = Readonly<Record<string, unknown>>;

/** An add-or-update of a record in `Leads` with a name and a phone number. */
export const lead = (clientId: string, extra: Extra = {}) => ({
  campaignName: 'Leads',
  clientId,
  previewRecordData: [
    { key: 'Name', value: 'Grace Hopper', displayOrder: 1 },
    { key: 'MobilePhone', value: '+14155550100', displayOrder: 2 },
  ],
  ...extra,
});

/** A search of `Leads` for the records whose `City` is `city`. */
export const byCity = (city: string) => ({
  campaignName: 'Leads',
  previewRecordData: [{ key: 'City', value: city, condition: 'EQUALS' }],
});

/** A status change of a record in `Leads`. */
export const stateChange = (clientId: string, state = 'COMPLETED', extra: Extra = {}) => ({
  campaignName: 'Leads',
  clientId,
  previewRecordStateEnum: state,
  ...extra,
});

/** A transfer of a record from `Leads` to `Callbacks`. */
export const transfer = (clientId: string, extra: Extra = {}) => ({
  campaignName: 'Leads',
  clientId,
  transferToCampaign: 'Callbacks',
  ...extra,
});

/** An add-user of a SAML user whose e-mail address is the login id. */
export const newHire = (loginUserId: string, extra: Extra = {}) => ({
  loginUserId,
  firstName: 'Grace',
  lastName: 'Hopper',
  primaryEmailAddr: loginUserId,
  userTemplateName: 'Agent',
  ...extra,
});
