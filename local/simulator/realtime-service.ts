import { type Criterion, isSearchCondition, isSystemKey, matchesAll } from './criteria';
import {
  isJsonObject,
  type JsonObject,
  optionalNonEmptyString,
  optionalString,
  Rejection,
  requiredNonEmptyString,
} from './request-fields';
import {
  DEFAULT_CLIENT_ID_FIELD_NAME,
  ITEM_TIME_ZONE_KEY,
  isCleanE164,
  isHttpUrl,
  isPhoneKey,
  isUrlKey,
  isZoneName,
  SPEC_REGIONS,
} from './spec-rules';
import {
  type Campaign,
  type CampaignRecordResponse,
  compareRecords,
  indexData,
  isWorkedState,
  locate,
  type RecordLocator,
  recordByClientId,
  type SimulatorState,
  type StoredRecord,
  toRecordResponse,
  toStoredData,
  WORKED_STATES,
} from './state';
import { isEpochMillis } from './time-format';

export const REALTIME_PATH_PREFIX =
  '/platform-previewcontact-service/svc/rs/PreviewContactServiceExternal/';

export const REALTIME_ENDPOINTS = [
  'addOrUpdateCampaignRecord',
  'searchPreviewCampaign',
  'changeCampaignRecordStatus',
  'transferCampaignRecord',
  'deleteRecordFromCampaign',
] as const;
export type RealtimeEndpoint = (typeof REALTIME_ENDPOINTS)[number];

export const isRealtimeEndpoint = (value: string): value is RealtimeEndpoint =>
  (REALTIME_ENDPOINTS as readonly string[]).includes(value);

export const PREVIEW_RESULT_STATUSES = [
  'SUCCESS',
  'FAILED',
  'INVALIDCLIENTID',
  'INVALIDRECORDDATAKEY',
  'NORECORDFOUND',
] as const;
export type PreviewResultStatus = (typeof PREVIEW_RESULT_STATUSES)[number];

/** `SkillQueue` data key: the queue the record is serviced through. */
export const SKILL_QUEUE_KEY = 'SkillQueue';

/** Default of `maxRecords` for a criteria search. */
export const DEFAULT_MAX_RECORDS = 1000;

export interface Tenant {
  readonly platformCode: string;
  readonly companyCode: string;
  readonly environmentName: string;
}

export interface RealtimeResponse {
  readonly platform: string | null;
  readonly companyCode: string | null;
  readonly environment: string | null;
  readonly region: string | null;
  readonly campaignName: string | null;
  readonly previewResult: {
    readonly previewResultStatus: PreviewResultStatus;
    readonly error: string | null;
  };
  /** searchPreviewCampaign only. */
  readonly previewRecordClientData?: readonly CampaignRecordResponse[];
}

const FAILED = 'FAILED';

const echoed = (body: JsonObject, field: string): string | null => {
  const value = body[field];
  return typeof value === 'string' ? value : null;
};

/** The envelope with the common properties echoed as received. */
export const realtimeEnvelope = (
  endpoint: RealtimeEndpoint,
  body: JsonObject,
  status: PreviewResultStatus,
  error: string | null,
  records?: readonly CampaignRecordResponse[],
): RealtimeResponse => ({
  platform: echoed(body, 'platform'),
  companyCode: echoed(body, 'companyCode'),
  environment: echoed(body, 'environment'),
  region: echoed(body, 'region'),
  campaignName: echoed(body, 'campaignName'),
  previewResult: { previewResultStatus: status, error },
  // Search always carries the array, empty on any non-SUCCESS status.
  ...(endpoint === 'searchPreviewCampaign' ? { previewRecordClientData: records ?? [] } : {}),
});

interface Context {
  readonly state: SimulatorState;
  readonly tenant: Tenant;
}

/** Answers one realtime request (HTTP 200 body). Never throws for bad input. */
export const handleRealtime = (
  endpoint: RealtimeEndpoint,
  body: JsonObject,
  state: SimulatorState,
  tenant: Tenant,
): RealtimeResponse => {
  const context: Context = { state, tenant };
  try {
    const campaignName = checkCommon(body, tenant);
    switch (endpoint) {
      case 'addOrUpdateCampaignRecord':
        addOrUpdate(body, campaignName, context);
        return realtimeEnvelope(endpoint, body, 'SUCCESS', null);
      case 'searchPreviewCampaign':
        return realtimeEnvelope(
          endpoint,
          body,
          'SUCCESS',
          null,
          search(body, campaignName, context),
        );
      case 'changeCampaignRecordStatus':
        changeStatus(body, campaignName, context);
        return realtimeEnvelope(endpoint, body, 'SUCCESS', null);
      case 'transferCampaignRecord':
        transfer(body, campaignName, context);
        return realtimeEnvelope(endpoint, body, 'SUCCESS', null);
      case 'deleteRecordFromCampaign':
        deleteRecord(body, campaignName, context);
        return realtimeEnvelope(endpoint, body, 'SUCCESS', null);
    }
  } catch (error) {
    if (error instanceof Rejection) {
      return realtimeEnvelope(endpoint, body, error.status as PreviewResultStatus, error.message);
    }
    throw error;
  }
};

/** Tenant properties must match the environment; region must be listed; campaign named. */
const checkCommon = (body: JsonObject, tenant: Tenant): string => {
  const expected: readonly [string, string][] = [
    ['platform', tenant.platformCode],
    ['companyCode', tenant.companyCode],
    ['environment', tenant.environmentName],
  ];
  for (const [field, value] of expected) {
    if (body[field] === undefined || body[field] === null) {
      throw new Rejection(FAILED, `${field} is required`);
    }
    if (body[field] !== value) {
      throw new Rejection(FAILED, `${field} does not match this environment`);
    }
  }
  const region = requiredNonEmptyString(body, 'region', FAILED);
  if (!SPEC_REGIONS.has(region)) {
    throw new Rejection(FAILED, 'region is not one of the regions the service runs in');
  }
  return requiredNonEmptyString(body, 'campaignName', FAILED);
};

const campaignForRead = (name: string, context: Context): Campaign | undefined => {
  const campaign = context.state.campaign(name);
  if (!campaign && !context.state.autoCreateCampaigns) {
    throw new Rejection(FAILED, 'campaign not found');
  }
  return campaign;
};

const campaignForWrite = (name: string, context: Context): Campaign => {
  const campaign = context.state.campaignForWrite(name);
  if (!campaign) throw new Rejection(FAILED, 'campaign not found');
  return campaign;
};

/** previewRecordId / clientId of status change, transfer, delete: at least one is needed. */
const readLocator = (body: JsonObject): RecordLocator => {
  const previewRecordId = optionalNonEmptyString(body, 'previewRecordId', FAILED);
  if (previewRecordId !== undefined) return { previewRecordId };
  const clientId = optionalNonEmptyString(body, 'clientId', FAILED);
  if (clientId !== undefined) return { clientId };
  throw new Rejection(FAILED, 'previewRecordId or clientId is required');
};

const notFound = (locator: RecordLocator): Rejection =>
  new Rejection(
    'NORECORDFOUND',
    locator.previewRecordId !== undefined
      ? 'no record found for the supplied previewRecordId'
      : 'no record found for the supplied clientId',
  );

const locateOrFail = (campaign: Campaign | undefined, locator: RecordLocator): StoredRecord => {
  const record = campaign ? locate(campaign, locator) : undefined;
  if (!record) throw notFound(locator);
  return record;
};

const optionalEpochMillis = (body: JsonObject, field: string): number | undefined => {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isEpochMillis(value)) {
    throw new Rejection(
      FAILED,
      `${field} must be a whole number of milliseconds since 1970-01-01 UTC`,
    );
  }
  return value;
};

const optionalTimeZone = (body: JsonObject, field: string): string | undefined => {
  const value = optionalString(body, field, FAILED);
  if (value !== undefined && !isZoneName(value)) {
    throw new Rejection(FAILED, `${field} must be an IANA time zone name`);
  }
  return value;
};

/** Options shared by status change and transfer; undefined means "leave unchanged". */
interface RoutingChanges {
  readonly skillQueue: string | undefined;
  /** null clears the preference (empty string on input). */
  readonly preferredAgent: string | null | undefined;
  readonly nextEarliestWorkTime: number | undefined;
  readonly timeZone: string | undefined;
}

const readRoutingChanges = (body: JsonObject): RoutingChanges => {
  const preferredAgent = optionalString(body, 'preferredAgent', FAILED);
  return {
    skillQueue: optionalNonEmptyString(body, 'skillQueue', FAILED),
    preferredAgent: preferredAgent === '' ? null : preferredAgent,
    nextEarliestWorkTime: optionalEpochMillis(body, 'nextEarliestWorkTimeUTC'),
    timeZone: optionalTimeZone(body, 'timeZone'),
  };
};

const applyRoutingChanges = (record: StoredRecord, changes: RoutingChanges): void => {
  if (changes.skillQueue !== undefined) record.skillQueue = changes.skillQueue;
  if (changes.preferredAgent !== undefined) record.preferredAgent = changes.preferredAgent;
  if (changes.nextEarliestWorkTime !== undefined) {
    record.nextEarliestWorkTime = changes.nextEarliestWorkTime;
  }
  if (changes.timeZone !== undefined) record.timeZone = changes.timeZone;
};

// ---- addOrUpdateCampaignRecord ---------------------------------------------------------

interface DataInput {
  readonly key: string;
  readonly value: string;
  readonly displayOrder?: number;
}

const readRecordData = (raw: unknown, clientIdFieldName: string): DataInput[] => {
  if (!Array.isArray(raw)) {
    throw new Rejection(FAILED, 'previewRecordData is required and must be an array');
  }
  // The reserved key is its own status, reported before other problems with the items.
  if (raw.some((item) => isJsonObject(item) && item.key === clientIdFieldName)) {
    throw new Rejection(
      'INVALIDRECORDDATAKEY',
      `previewRecordData contains the key "${clientIdFieldName}" reserved for the clientId`,
    );
  }
  const seen = new Set<string>();
  return raw.map((item: unknown, index): DataInput => {
    const at = `previewRecordData[${index}]`;
    if (!isJsonObject(item)) throw new Rejection(FAILED, `${at} must be an object`);
    const { key, value, displayOrder } = item;
    if (typeof key !== 'string' || key === '') {
      throw new Rejection(FAILED, `${at}.key is required`);
    }
    if (typeof value !== 'string') throw new Rejection(FAILED, `${at}.value is required`);
    if (seen.has(key)) throw new Rejection(FAILED, `${at}: duplicate key "${key}"`);
    seen.add(key);
    if (displayOrder !== undefined && displayOrder !== null) {
      if (typeof displayOrder !== 'number' || !Number.isSafeInteger(displayOrder)) {
        throw new Rejection(FAILED, `${at}.displayOrder must be an integer`);
      }
      if (displayOrder <= 0) {
        throw new Rejection(FAILED, `${at}.displayOrder must be greater than zero`);
      }
    }
    if (isPhoneKey(key) && !isCleanE164(value)) {
      throw new Rejection(FAILED, `${at}: key "${key}" must hold a clean E.164 number`);
    }
    if (isUrlKey(key) && !isHttpUrl(value)) {
      throw new Rejection(FAILED, `${at}: key "${key}" must hold a URL`);
    }
    if (key === ITEM_TIME_ZONE_KEY && !isZoneName(value)) {
      throw new Rejection(FAILED, `${at}: key "${key}" must hold an IANA time zone name`);
    }
    if (key === SKILL_QUEUE_KEY && value === '') {
      throw new Rejection(FAILED, `${at}: key "${key}" must name a skill queue`);
    }
    return typeof displayOrder === 'number' ? { key, value, displayOrder } : { key, value };
  });
};

const addOrUpdate = (body: JsonObject, campaignName: string, context: Context): void => {
  const clientId = body.clientId;
  if (typeof clientId !== 'string' || clientId === '') {
    throw new Rejection('INVALIDCLIENTID', 'clientId is required');
  }
  const clientIdFieldName =
    optionalNonEmptyString(body, 'clientIdFieldName', FAILED) ?? DEFAULT_CLIENT_ID_FIELD_NAME;
  const items = readRecordData(body.previewRecordData, clientIdFieldName);
  const previewRecordId = optionalNonEmptyString(body, 'previewRecordId', FAILED);
  const preferredAgent = optionalString(body, 'preferredAgent', FAILED);
  const nextEarliestWorkTime = optionalEpochMillis(body, 'nextEarliestWorkTimeUTC');

  const { state } = context;
  const campaign = campaignForWrite(campaignName, context);
  const existing =
    previewRecordId !== undefined
      ? campaign.records.get(previewRecordId)
      : recordByClientId(campaign, clientId);
  const skillQueue = items.find((i) => i.key === SKILL_QUEUE_KEY)?.value;
  const timeZone = items.find((i) => i.key === ITEM_TIME_ZONE_KEY)?.value;
  const now = state.clock();

  if (existing) {
    // Rule 1: an update replaces ALL stored data with the supplied items.
    existing.data = toStoredData(items);
    existing.dataByKey = indexData(existing.data);
    if (skillQueue !== undefined) existing.skillQueue = skillQueue;
    if (timeZone !== undefined) existing.timeZone = timeZone;
    if (preferredAgent !== undefined) existing.preferredAgent = preferredAgent || null;
    if (nextEarliestWorkTime !== undefined) existing.nextEarliestWorkTime = nextEarliestWorkTime;
    existing.lastUpdatedTime = now;
    state.markApplied({
      action: 'addOrUpdateCampaignRecord:update',
      campaignName,
      previewRecordID: existing.previewRecordID,
      clientId: existing.clientId,
    });
    return;
  }

  // An unmatched previewRecordId means "add", as the spec says, even when the clientId is
  // taken already: the campaign then holds two records with that clientId.
  const data = toStoredData([{ key: clientIdFieldName, value: clientId }, ...items]);
  const record: StoredRecord = {
    previewRecordID: state.nextRecordId(),
    clientId,
    campaignName,
    preferredAgent: preferredAgent || null,
    skillQueue: skillQueue ?? campaign.defaultSkillQueue,
    timeZone: timeZone ?? campaign.defaultTimeZone,
    createdTime: now,
    lastUpdatedTime: now,
    nextEarliestWorkTime: nextEarliestWorkTime ?? null,
    workedState: 'NOTWORKED',
    workAttempts: 0,
    lastAttemptAgent: null,
    lastAttemptTime: null,
    workCodes: [],
    data,
    dataByKey: indexData(data),
  };
  state.insertRecord(campaign, record);
  state.markApplied({
    action: 'addOrUpdateCampaignRecord:add',
    campaignName,
    previewRecordID: record.previewRecordID,
    clientId,
  });
};

// ---- searchPreviewCampaign -------------------------------------------------------------

const readCriteria = (raw: unknown): Criterion[] => {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new Rejection(
      FAILED,
      'previewRecordData (search criteria) is required when neither previewRecordId nor clientId is given',
    );
  }
  return raw.map((item: unknown, index): Criterion => {
    const at = `previewRecordData[${index}]`;
    if (!isJsonObject(item)) throw new Rejection(FAILED, `${at} must be an object`);
    const { key, value, condition } = item;
    if (typeof key !== 'string' || key === '') throw new Rejection(FAILED, `${at}.key is required`);
    if (key.startsWith('sys_') && !isSystemKey(key)) {
      throw new Rejection(FAILED, `${at}.key "${key}" is not a known system key`);
    }
    if (typeof value !== 'string') throw new Rejection(FAILED, `${at}.value is required`);
    if (!isSearchCondition(condition)) {
      throw new Rejection(
        FAILED,
        `${at}.condition must be one of EQUALS, NOTEQUALS, GREATERTHAN, LESSTHAN, CONTAINS, BEGINSWITH`,
      );
    }
    return { key, value, condition };
  });
};

const readMaxRecords = (body: JsonObject): number => {
  const value = body.maxRecords;
  if (value === undefined || value === null) return DEFAULT_MAX_RECORDS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new Rejection(FAILED, 'maxRecords must be a positive integer');
  }
  return value;
};

const search = (
  body: JsonObject,
  campaignName: string,
  context: Context,
): CampaignRecordResponse[] => {
  const previewRecordId = optionalNonEmptyString(body, 'previewRecordId', FAILED);
  const clientId =
    previewRecordId === undefined ? optionalNonEmptyString(body, 'clientId', FAILED) : undefined;
  if (previewRecordId !== undefined || clientId !== undefined) {
    const locator: RecordLocator =
      previewRecordId !== undefined ? { previewRecordId } : { clientId };
    const campaign = campaignForRead(campaignName, context);
    return [toRecordResponse(locateOrFail(campaign, locator))];
  }
  const criteria = readCriteria(body.previewRecordData);
  const maxRecords = readMaxRecords(body);
  const campaign = campaignForRead(campaignName, context);
  if (!campaign) return [];
  const matches: StoredRecord[] = [];
  for (const record of campaign.records.values()) {
    if (matchesAll(record, criteria)) matches.push(record);
  }
  return matches.sort(compareRecords).slice(0, maxRecords).map(toRecordResponse);
};

// ---- changeCampaignRecordStatus --------------------------------------------------------

const changeStatus = (body: JsonObject, campaignName: string, context: Context): void => {
  const locator = readLocator(body);
  const newState = body.previewRecordStateEnum;
  if (!isWorkedState(newState)) {
    throw new Rejection(
      FAILED,
      `previewRecordStateEnum must be one of ${WORKED_STATES.join(', ')}`,
    );
  }
  const changes = readRoutingChanges(body);
  if (newState === 'WORKED' && changes.nextEarliestWorkTime === undefined) {
    throw new Rejection(FAILED, 'nextEarliestWorkTimeUTC is required when the new state is WORKED');
  }
  const record = locateOrFail(campaignForRead(campaignName, context), locator);
  record.workedState = newState;
  applyRoutingChanges(record, changes);
  record.lastUpdatedTime = context.state.clock();
  context.state.markApplied({
    action: 'changeCampaignRecordStatus',
    campaignName,
    previewRecordID: record.previewRecordID,
    clientId: record.clientId,
  });
};

// ---- transferCampaignRecord ------------------------------------------------------------

const transfer = (body: JsonObject, campaignName: string, context: Context): void => {
  const locator = readLocator(body);
  const destinationName = requiredNonEmptyString(body, 'transferToCampaign', FAILED);
  const changes = readRoutingChanges(body);
  if (destinationName === campaignName) {
    throw new Rejection(FAILED, 'transferToCampaign is the campaign the record is already in');
  }
  const source = campaignForRead(campaignName, context);
  const record = locateOrFail(source, locator);
  const existingDestination = context.state.campaign(destinationName);
  if (existingDestination?.byClientId.has(record.clientId)) {
    throw new Rejection(FAILED, 'the destination campaign already has a record with this clientId');
  }
  const destination = campaignForWrite(destinationName, context);
  if (!source) throw notFound(locator); // unreachable: the record was found in it
  context.state.removeRecord(source, record);
  context.state.insertRecord(destination, record);
  applyRoutingChanges(record, changes);
  record.lastUpdatedTime = context.state.clock();
  context.state.markApplied({
    action: 'transferCampaignRecord',
    campaignName: destinationName,
    previewRecordID: record.previewRecordID,
    clientId: record.clientId,
  });
};

// ---- deleteRecordFromCampaign ----------------------------------------------------------

const deleteRecord = (body: JsonObject, campaignName: string, context: Context): void => {
  const locator = readLocator(body);
  const campaign = campaignForRead(campaignName, context);
  const record = locateOrFail(campaign, locator);
  if (!campaign) throw notFound(locator); // unreachable: the record was found in it
  context.state.removeRecord(campaign, record);
  context.state.markApplied({
    action: 'deleteRecordFromCampaign',
    campaignName,
    previewRecordID: record.previewRecordID,
    clientId: record.clientId,
  });
};
