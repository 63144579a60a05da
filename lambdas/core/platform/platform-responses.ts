/**
 * Response bodies of both platform services as the specs show them. The classifier checks the
 * envelope (`previewResult.previewResultStatus` / `result`) before a body is typed as one of
 * these; fields beyond the envelope are the platform's and are passed on as received.
 */

/** `previewResult` of every realtime response. */
export interface PreviewResult {
  readonly previewResultStatus: string;
  /** Null on SUCCESS; otherwise the platform's reason text. */
  readonly error: string | null;
}

/** Every realtime response echoes the common request properties and adds `previewResult`. */
export interface RealtimeResponse {
  readonly platform: string;
  readonly companyCode: string;
  readonly environment: string;
  readonly region: string;
  readonly campaignName: string;
  readonly previewResult: PreviewResult;
}

/** A data item as returned by search (`displayOrder` is returned there). */
export interface CampaignRecordDataItem {
  readonly key: string;
  readonly value: string;
  readonly displayOrder?: number;
}

export interface WorkCode {
  /** Work code group. */
  readonly key: string;
  /** Selected work code. */
  readonly value: string;
}

/** A preferred agent as the platform keeps it: an empty one clears the preference (null). */
export const agentValue = (agent: string | null): string | null => agent || null;

/** A record's `workedState` (previewRecordStateEnum): what a status change sets and a search shows. */
export const WORKED_STATES = ['NOTWORKED', 'WORKED', 'COMPLETED', 'REMOVED'] as const;
export type WorkedState = (typeof WORKED_STATES)[number];

/** A record in `previewRecordClientData`; times are UTC `CCYY-MM-DD HH:MM:SS.mmm`. */
export interface CampaignRecord {
  /** Spelled with capital `ID` in responses (the request property is `previewRecordId`). */
  readonly previewRecordID: string;
  readonly clientId: string;
  readonly preferredAgent: string | null;
  readonly skillQueue: string;
  readonly createdTime: string;
  readonly lastUpdatedTime: string;
  readonly nextEarliestWorkTime: string | null;
  readonly workedState: WorkedState;
  readonly workAttempts: number;
  readonly lastAttemptAgent: string | null;
  readonly lastAttemptTime: string | null;
  readonly workCodes?: readonly WorkCode[];
  readonly previewRecordData: readonly CampaignRecordDataItem[];
}

export interface SearchResponse extends RealtimeResponse {
  readonly previewRecordClientData: readonly CampaignRecord[];
}

/** Every provisioning HTTP 200 body has at least `result` and `message`. */
export interface ProvisioningResponse {
  readonly result: string;
  readonly message: string;
  /** add-user (when created in the backing instance) and query-existence. */
  readonly connectUserId?: string | null;
  /** query-existence: presence in the backing instance; null when the user does not exist. */
  readonly cloudConnectStatus?: 'EXISTS' | 'NOT_FOUND' | null;
}

/** Search responses carry times as UTC `CCYY-MM-DD HH:MM:SS.mmm`; undefined for none or another form. */
export const platformTimeMillis = (time: string | null | undefined): number | undefined => {
  if (typeof time !== 'string') return undefined;
  const ms = Date.parse(`${time.replace(' ', 'T')}Z`);
  return Number.isFinite(ms) ? ms : undefined;
};
