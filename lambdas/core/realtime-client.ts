import type {
  AddOrUpdateCampaignRecordMessage,
  ChangeCampaignRecordStatusMessage,
  DeleteCampaignRecordMessage,
  SearchCampaignRecordsMessage,
  TransferCampaignRecordMessage,
} from '../messages';
import { classifyRealtime } from './classify';
import type { HttpResult } from './http';
import type { Outcome } from './outcome';
import { pickDefined } from './pick-defined';
import { type CallOptions, type ClientDeps, PlatformCaller } from './platform-caller';
import type { RealtimeResponse, SearchResponse } from './platform-responses';
import type { HttpSettings, PlatformSettings } from './platform-settings';
import type { ApiKeySource } from './ports';

export type { AttemptInfo, CallOptions, ClientDeps } from './platform-caller';
export type {
  CampaignRecord,
  CampaignRecordDataItem,
  PreviewResult,
  RealtimeResponse,
  SearchResponse,
  WorkCode,
  WorkedState,
} from './platform-responses';

export const REALTIME_PATH_PREFIX =
  '/platform-previewcontact-service/svc/rs/PreviewContactServiceExternal';

export type RealtimeEndpoint =
  | 'addOrUpdateCampaignRecord'
  | 'searchPreviewCampaign'
  | 'changeCampaignRecordStatus'
  | 'transferCampaignRecord'
  | 'deleteRecordFromCampaign';

type CommonFields = { readonly campaignName: string; readonly region?: string | undefined };

/**
 * Typed client of the Preview Campaign Realtime Service. Bodies carry exactly the spec's
 * properties: the common ones (`platform`, `companyCode`, `environment` from settings;
 * `region` defaulting to the campaign region) plus the action's own, without `correlationId`
 * and without undefined keys.
 */
export class RealtimeClient {
  readonly #caller: PlatformCaller;
  readonly #settings: PlatformSettings;

  constructor(
    settings: PlatformSettings,
    apiKey: ApiKeySource,
    http?: Partial<HttpSettings>,
    deps?: ClientDeps,
  ) {
    this.#settings = settings;
    this.#caller = new PlatformCaller(settings, apiKey, http, deps);
  }

  addOrUpdateCampaignRecord(
    message: AddOrUpdateCampaignRecordMessage,
    options?: CallOptions,
  ): Promise<Outcome<RealtimeResponse>> {
    return this.#call(
      'addOrUpdateCampaignRecord',
      message,
      {
        ...pickDefined(message, [
          'previewRecordId',
          'clientId',
          'clientIdFieldName',
          'preferredAgent',
          'nextEarliestWorkTimeUTC',
        ]),
        previewRecordData: message.previewRecordData.map((item) =>
          pickDefined(item, ['key', 'value', 'displayOrder']),
        ),
      },
      classifyRealtime,
      options,
    );
  }

  searchPreviewCampaign(
    message: SearchCampaignRecordsMessage,
    options?: CallOptions,
  ): Promise<Outcome<SearchResponse>> {
    return this.#call(
      'searchPreviewCampaign',
      message,
      {
        ...pickDefined(message, ['previewRecordId', 'clientId', 'maxRecords']),
        ...(message.previewRecordData === undefined
          ? {}
          : {
              previewRecordData: message.previewRecordData.map((criterion) =>
                pickDefined(criterion, ['key', 'value', 'condition']),
              ),
            }),
      },
      // The envelope and the records array are checked before the body is typed.
      (result) => classifyRealtime(result, { expectRecords: true }) as Outcome<SearchResponse>,
      options,
    );
  }

  changeCampaignRecordStatus(
    message: ChangeCampaignRecordStatusMessage,
    options?: CallOptions,
  ): Promise<Outcome<RealtimeResponse>> {
    return this.#call(
      'changeCampaignRecordStatus',
      message,
      pickDefined(message, [
        'previewRecordId',
        'clientId',
        'previewRecordStateEnum',
        'skillQueue',
        'preferredAgent',
        'nextEarliestWorkTimeUTC',
        'timeZone',
      ]),
      classifyRealtime,
      options,
    );
  }

  transferCampaignRecord(
    message: TransferCampaignRecordMessage,
    options?: CallOptions,
  ): Promise<Outcome<RealtimeResponse>> {
    return this.#call(
      'transferCampaignRecord',
      message,
      pickDefined(message, [
        'previewRecordId',
        'clientId',
        'transferToCampaign',
        'skillQueue',
        'preferredAgent',
        'nextEarliestWorkTimeUTC',
        'timeZone',
      ]),
      classifyRealtime,
      options,
    );
  }

  deleteRecordFromCampaign(
    message: DeleteCampaignRecordMessage,
    options?: CallOptions,
  ): Promise<Outcome<RealtimeResponse>> {
    return this.#call(
      'deleteRecordFromCampaign',
      message,
      pickDefined(message, ['previewRecordId', 'clientId']),
      classifyRealtime,
      options,
    );
  }

  #call<TBody>(
    endpoint: RealtimeEndpoint,
    message: CommonFields,
    fields: Readonly<Record<string, unknown>>,
    classify: (result: HttpResult) => Outcome<TBody>,
    options: CallOptions | undefined,
  ): Promise<Outcome<TBody>> {
    const body = {
      platform: this.#settings.platformCode,
      companyCode: this.#settings.companyCode,
      environment: this.#settings.environmentName,
      campaignName: message.campaignName,
      region: message.region ?? this.#settings.campaignRegion,
      ...fields,
    };
    return this.#caller.post(
      endpoint,
      `${REALTIME_PATH_PREFIX}/${endpoint}`,
      body,
      classify,
      options,
    );
  }
}
