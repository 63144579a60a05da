import type { ActionName } from '../actions';
import type { MessageOf } from '../messages';
import { DEFAULT_CLIENT_ID_FIELD_NAME } from '../messages/rules';
import type { Outcome } from './outcome';
import { pickDefined } from './pick-defined';
import type { HttpSettings, PlatformSettings } from './platform-settings';
import type { ApiKeySource } from './ports';
import { ProvisioningClient, type ProvisioningResponse } from './provisioning-client';
import {
  type CallOptions,
  type CampaignRecord,
  RealtimeClient,
  type SearchResponse,
} from './realtime-client';

/**
 * Per-action logic between a validated message and the platform: which client call, and how
 * the action turns a platform status into an outcome. This is where idempotency lives: when a
 * redelivery finds the desired end state already in place, the outcome is a success with an
 * `ALREADY_*` code instead of a failure.
 */
export interface PlatformClients {
  readonly realtime: RealtimeClient;
  readonly provisioning: ProvisioningClient;
}

export interface Execution {
  readonly outcome: Outcome;
  /** The typed result of a read action (published on the result bus, returned when invoked directly). */
  readonly result?: SearchResult | UserExistenceResult;
}

export interface SearchResult {
  /** SUCCESS, or NORECORDFOUND for an id lookup that matched nothing. */
  readonly status: 'SUCCESS' | 'NORECORDFOUND';
  readonly records: readonly CampaignRecord[];
}

export interface UserExistenceResult {
  /** SUCCESS when the user exists on the platform, NOT_FOUND when not. */
  readonly status: 'SUCCESS' | 'NOT_FOUND';
  readonly exists: boolean;
  /** Presence in the backing contact-center instance (null when the user does not exist). */
  readonly cloudConnectStatus: 'EXISTS' | 'NOT_FOUND' | null;
  readonly connectUserId: string | null;
}

/** How to call the platform for one message, and what is known of its earlier deliveries. */
export interface ExecutionOptions extends CallOptions {
  /** The message was received before: an earlier delivery may have applied it already. */
  readonly redelivered?: boolean;
}

type Executor<A extends ActionName> = (
  message: MessageOf<A>,
  clients: PlatformClients,
  call: ExecutionOptions,
) => Promise<Execution>;

/** The desired end state already holds: report success, keep the evidence in code and message. */
const alreadyApplied = (outcome: Outcome, code: string, message: string): Outcome => ({
  ...outcome,
  category: 'success',
  code,
  message,
});

const searchResult = (outcome: Outcome<SearchResponse>): SearchResult => ({
  status: outcome.code === 'NORECORDFOUND' ? 'NORECORDFOUND' : 'SUCCESS',
  records: outcome.body?.previewRecordClientData ?? [],
});

const existenceResult = (outcome: Outcome<ProvisioningResponse>): UserExistenceResult => {
  const exists = outcome.code === 'SUCCESS';
  const status = outcome.body?.cloudConnectStatus;
  return {
    status: exists ? 'SUCCESS' : 'NOT_FOUND',
    exists,
    cloudConnectStatus: status === 'EXISTS' || status === 'NOT_FOUND' ? status : null,
    connectUserId: outcome.body?.connectUserId ?? null,
  };
};

/** Failures after which the request may have been applied although no answer said so. */
export const mayHaveBeenApplied = (outcome: Outcome<unknown>): boolean =>
  outcome.code === 'TIMEOUT' ||
  outcome.code === 'NETWORK_ERROR' ||
  outcome.code === 'MALFORMED_RESPONSE' ||
  (outcome.httpStatus !== undefined && outcome.httpStatus >= 500);

/** add-user answered ALREADY_EXISTS: in place only if the user also is where the message asks. */
export const confirmExistingUser = async (
  message: MessageOf<'add-user'>,
  outcome: Outcome,
  clients: PlatformClients,
  call: ExecutionOptions,
): Promise<Execution> => {
  // Confirm the existing user also satisfies createInCloudConnect before calling it done.
  const existing = await clients.provisioning.queryExistence(
    { loginUserId: message.loginUserId },
    call,
  );
  if (existing.category === 'retryable') return { outcome: existing };
  const found = existenceResult(existing);
  if (!found.exists) {
    return {
      outcome: {
        ...outcome,
        category: 'retryable',
        message: 'add-user said ALREADY_EXISTS but query-existence does not find the user',
      },
    };
  }
  if (message.createInCloudConnect === true && found.cloudConnectStatus !== 'EXISTS') {
    return {
      outcome: {
        ...outcome,
        message:
          'user already exists on the platform but not in the backing contact-center instance; the API cannot add it there for an existing user',
      },
    };
  }
  return {
    outcome: alreadyApplied(outcome, 'ALREADY_EXISTS', 'user was already provisioned'),
  };
};

/** Search responses carry times as UTC `CCYY-MM-DD HH:MM:SS.mmm`. */
export const platformTimeMillis = (time: string | null): number | undefined =>
  time === null ? undefined : Date.parse(`${time.replace(' ', 'T')}Z`);

/**
 * True when the stored record already is what this add-or-update asks for: the same data items
 * (besides the clientId item the platform stores on add) and the same optional fields.
 */
const holdsMessage = (
  record: CampaignRecord,
  message: MessageOf<'add-or-update-campaign-record'>,
): boolean => {
  const clientIdKey = message.clientIdFieldName ?? DEFAULT_CLIENT_ID_FIELD_NAME;
  const stored = record.previewRecordData.filter(
    (item) => !(item.key === clientIdKey && item.value === message.clientId),
  );
  const sameData =
    stored.length === message.previewRecordData.length &&
    message.previewRecordData.every((item, i) => {
      const found = stored[i];
      return (
        found !== undefined &&
        found.key === item.key &&
        found.value === item.value &&
        (item.displayOrder === undefined || found.displayOrder === item.displayOrder)
      );
    });
  const agent = message.preferredAgent;
  const sameAgent =
    agent === undefined ||
    (agent === '' ? !record.preferredAgent : record.preferredAgent === agent);
  const time = message.nextEarliestWorkTimeUTC;
  const sameTime = time === undefined || platformTimeMillis(record.nextEarliestWorkTime) === time;
  return sameData && sameAgent && sameTime;
};

/**
 * Looks the record up (by previewRecordId, then clientId): `in-place` with an ALREADY_APPLIED
 * outcome when it already holds the message, `send` when it is absent or differs, `unknown`
 * when the lookup got no answer.
 */
const lookUpRecord = async (
  message: MessageOf<'add-or-update-campaign-record'>,
  clients: PlatformClients,
  call: CallOptions,
): Promise<{ kind: 'in-place'; outcome: Outcome<never> } | { kind: 'send' | 'unknown' }> => {
  // Never the add's own beforeRetry: a lookup must not start another lookup.
  const options = pickDefined(call, ['deadline', 'onAttempt']);
  const locators = [
    ...(message.previewRecordId === undefined
      ? []
      : [{ previewRecordId: message.previewRecordId }]),
    { clientId: message.clientId },
  ];
  for (const locator of locators) {
    const lookup = await clients.realtime.searchPreviewCampaign(
      { campaignName: message.campaignName, region: message.region, ...locator },
      options,
    );
    if (lookup.code === 'NORECORDFOUND') continue;
    if (lookup.category !== 'success') return { kind: 'unknown' };
    const record = lookup.body?.previewRecordClientData[0];
    if (record === undefined) continue;
    if (!holdsMessage(record, message)) return { kind: 'send' };
    return {
      kind: 'in-place',
      outcome: {
        category: 'success',
        code: 'ALREADY_APPLIED',
        message: `record "${message.clientId}" in "${message.campaignName}" already holds this data; not sent again`,
        attempts: lookup.attempts,
      },
    };
  }
  return { kind: 'send' };
};

export const EXECUTORS: { readonly [A in ActionName]: Executor<A> } = {
  'add-or-update-campaign-record': async (message, clients, call) => {
    // Repeating an add whose answer was lost is not harmless: the platform takes the repeat for
    // an update, and an update replaces all data, dropping the clientId item the add stored
    // (realtime spec, add-or-update rule 1). So before repeating, look whether the record
    // already holds what this message asks for.
    const { redelivered, ...options } = call;
    // Once a lookup got no answer (the platform is down, say), retries go out unchecked: in an
    // outage a lookup before every retry would only multiply the failing requests.
    let lookupAnswered = true;
    const inPlace = async (): Promise<Outcome<never> | undefined> => {
      const found = await lookUpRecord(message, clients, options);
      lookupAnswered = found.kind !== 'unknown';
      return found.kind === 'in-place' ? found.outcome : undefined;
    };
    if (redelivered === true) {
      const done = await inPlace();
      if (done) return { outcome: done };
    }
    return {
      outcome: await clients.realtime.addOrUpdateCampaignRecord(message, {
        ...options,
        beforeRetry: async (failed) =>
          lookupAnswered && mayHaveBeenApplied(failed) ? inPlace() : undefined,
      }),
    };
  },

  'search-campaign-records': async (message, clients, call) => {
    const outcome = await clients.realtime.searchPreviewCampaign(message, call);
    // An id lookup that matches nothing is an answer, not a failure, for a read.
    if (outcome.code === 'NORECORDFOUND') {
      const answered = alreadyApplied(outcome, 'NORECORDFOUND', 'no record matches the id');
      return { outcome: answered, result: searchResult(outcome) };
    }
    return outcome.category === 'success'
      ? { outcome, result: searchResult(outcome) }
      : { outcome };
  },

  'change-campaign-record-status': async (message, clients, call) => ({
    outcome: await clients.realtime.changeCampaignRecordStatus(message, call),
  }),

  'transfer-campaign-record': async (message, clients, call) => {
    const outcome = await clients.realtime.transferCampaignRecord(message, call);
    if (outcome.code !== 'NORECORDFOUND') return { outcome };
    // Gone from the source campaign: done already if it now sits in the destination campaign.
    const lookup = await clients.realtime.searchPreviewCampaign(
      {
        campaignName: message.transferToCampaign,
        region: message.region,
        previewRecordId: message.previewRecordId,
        clientId: message.clientId,
      },
      call,
    );
    if (lookup.category === 'retryable') return { outcome: lookup };
    if (lookup.code === 'SUCCESS' && (lookup.body?.previewRecordClientData.length ?? 0) > 0) {
      return {
        outcome: alreadyApplied(
          outcome,
          'ALREADY_TRANSFERRED',
          `record is no longer in "${message.campaignName}" and already in "${message.transferToCampaign}"`,
        ),
      };
    }
    return {
      outcome: {
        ...outcome,
        message: `no record with that id in "${message.campaignName}" nor in "${message.transferToCampaign}"`,
      },
    };
  },

  'delete-campaign-record': async (message, clients, call) => {
    const outcome = await clients.realtime.deleteRecordFromCampaign(message, call);
    return outcome.code === 'NORECORDFOUND'
      ? {
          outcome: alreadyApplied(
            outcome,
            'ALREADY_DELETED',
            `no such record in "${message.campaignName}": already deleted or never added`,
          ),
        }
      : { outcome };
  },

  'add-user': async (message, clients, call) => {
    const outcome = await clients.provisioning.addUser(message, call);
    return outcome.code === 'ALREADY_EXISTS'
      ? confirmExistingUser(message, outcome, clients, call)
      : { outcome };
  },

  'query-user-existence': async (message, clients, call) => {
    const outcome = await clients.provisioning.queryExistence(message, call);
    if (outcome.code === 'NOT_FOUND') {
      const answered = alreadyApplied(outcome, 'NOT_FOUND', 'user does not exist');
      return { outcome: answered, result: existenceResult(outcome) };
    }
    return outcome.category === 'success'
      ? { outcome, result: existenceResult(outcome) }
      : { outcome };
  },

  'delete-user': async (message, clients, call) => {
    const outcome = await clients.provisioning.deleteUser(message, call);
    return outcome.code === 'NOT_FOUND'
      ? {
          outcome: alreadyApplied(
            outcome,
            'ALREADY_DELETED',
            'user does not exist: already deleted',
          ),
        }
      : { outcome };
  },
};

/** Both platform clients over one settings object and one key source. */
export const createPlatformClients = (
  settings: PlatformSettings,
  apiKey: ApiKeySource,
  http?: Partial<HttpSettings>,
): PlatformClients => ({
  realtime: new RealtimeClient(settings, apiKey, http),
  provisioning: new ProvisioningClient(settings, apiKey, http),
});
