/**
 * The fixed list of actions. Names become handler file names, EventBridge detail-types,
 * queue names and JSON Schema file names, so they never change once deployed.
 */
export const ACTIONS = [
  {
    name: 'add-or-update-campaign-record',
    service: 'realtime',
    endpoint: 'addOrUpdateCampaignRecord',
    kind: 'write',
  },
  {
    name: 'search-campaign-records',
    service: 'realtime',
    endpoint: 'searchPreviewCampaign',
    kind: 'read',
  },
  {
    name: 'change-campaign-record-status',
    service: 'realtime',
    endpoint: 'changeCampaignRecordStatus',
    kind: 'write',
  },
  {
    name: 'transfer-campaign-record',
    service: 'realtime',
    endpoint: 'transferCampaignRecord',
    kind: 'write',
  },
  {
    name: 'delete-campaign-record',
    service: 'realtime',
    endpoint: 'deleteRecordFromCampaign',
    kind: 'write',
  },
  { name: 'add-user', service: 'provisioning', endpoint: 'add-user', kind: 'write' },
  {
    name: 'query-user-existence',
    service: 'provisioning',
    endpoint: 'query-existence',
    kind: 'read',
  },
  { name: 'delete-user', service: 'provisioning', endpoint: 'delete-user', kind: 'write' },
] as const;

export type ActionDefinition = (typeof ACTIONS)[number];
export type ActionName = ActionDefinition['name'];
export type ServiceName = ActionDefinition['service'];

export const ACTION_NAMES: readonly ActionName[] = ACTIONS.map((a) => a.name);

/** Reads publish their result on the result bus; writes only change the platform. */
export const READ_ACTIONS: readonly ActionName[] = ACTIONS.filter((a) => a.kind === 'read').map(
  (a) => a.name,
);

/** A read: answers with a result, takes no lease, needs the result bus and not the ledger. */
export const isReadAction = (action: ActionName): boolean => READ_ACTIONS.includes(action);

/** Service name on every log line and metric (Powertools); POWERTOOLS_SERVICE_NAME overrides it. */
export const SERVICE_NAME = 'contact-center-sync';

/** CloudWatch namespace of the EMF metrics; POWERTOOLS_METRICS_NAMESPACE overrides it. */
export const METRICS_NAMESPACE = 'ContactCenterSync';

/** EventBridge `source` of every event this integration publishes. */
export const RESULT_EVENT_SOURCE = 'contact-center-sync';

/** `detail-type` of the result event a read action publishes. */
export const resultDetailType = (action: ActionName): string => `${action}.result`;

export const isActionName = (value: string): value is ActionName =>
  (ACTION_NAMES as readonly string[]).includes(value);

export const actionDefinition = (name: ActionName): ActionDefinition => {
  const found = ACTIONS.find((a) => a.name === name);
  if (!found) throw new Error(`Unknown action: ${name}`);
  return found;
};
