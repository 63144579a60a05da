import { afterAll, beforeAll, beforeEach } from 'vitest';
import {
  PROVISIONING_PATH_PREFIX,
  type ProvisioningEndpoint,
  type ProvisioningResponse,
  REALTIME_PATH_PREFIX,
  type RealtimeEndpoint,
  type RealtimeResponse,
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../../local/simulator';
import { lateBound } from '../../support/late-bound';
import { TEST_TENANT } from '../../support/test-tenant';

export const TENANT = { ...TEST_TENANT, apiKey: 'test-api-key' } as const;

/** 2023-11-14 22:13:20.000 UTC */
export const T0 = 1_700_000_000_000;

/** A hand-driven clock so createdTime ordering and formats are deterministic. */
export interface ManualClock {
  now: () => number;
  advance: (ms: number) => void;
}

export const manualClock = (start = T0): ManualClock => {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
  };
};

export const startTestSimulator = (
  overrides: Partial<SimulatorOptions> = {},
): Promise<RunningSimulator> => startSimulator({ ...TENANT, ...overrides });

/**
 * One simulator for the enclosing describe block (or file), emptied before each test and
 * closed after the last; the file uses the returned stand-in as the simulator.
 */
export const useTestSimulator = (overrides: Partial<SimulatorOptions> = {}): RunningSimulator => {
  const sim = lateBound<RunningSimulator>('the test simulator');
  beforeAll(async () => {
    sim.set(await startTestSimulator(overrides));
  });
  beforeEach(() => sim.value().reset());
  afterAll(async () => {
    await sim.peek()?.close();
  });
  return sim.standIn;
};

/** Like useTestSimulator, with a hand-driven clock that starts again at T0 before each test. */
export const useClockedTestSimulator = (): { sim: RunningSimulator; clock: ManualClock } => {
  const clock = lateBound<ManualClock>('the test clock');
  clock.set(manualClock());
  // Registered first, so the clock is fresh before the simulator is reset.
  beforeEach(() => clock.set(manualClock()));
  const sim = useTestSimulator({ now: () => clock.value().now() });
  return { sim, clock: clock.standIn };
};

/** Runs `use` against a simulator of its own (other options than the file's), then closes it. */
export const withTestSimulator = async <T>(
  overrides: Partial<SimulatorOptions>,
  use: (sim: RunningSimulator) => Promise<T>,
): Promise<T> => {
  const sim = await startTestSimulator(overrides);
  try {
    return await use(sim);
  } finally {
    await sim.close();
  }
};

export const authHeaders = (overrides: Record<string, string | undefined> = {}) => {
  const headers: Record<string, string | undefined> = {
    'Content-Type': 'application/json',
    'X-sc-platform-code': TENANT.platformCode,
    'X-sc-company-code': TENANT.companyCode,
    'X-sc-company-environment': TENANT.environmentName,
    'X-sc-secrets-region': 'us-east-1',
    'X-sc-company-api-key': TENANT.apiKey,
    ...overrides,
  };
  return Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
};

export const common = (campaignName: string, region = 'eu-central-1') => ({
  platform: TENANT.platformCode,
  companyCode: TENANT.companyCode,
  environment: TENANT.environmentName,
  region,
  campaignName,
});

export const tenantObject = {
  platform: TENANT.platformCode,
  companyCode: TENANT.companyCode,
  environment: TENANT.environmentName,
};

/** A complete add-user body for the test tenant. */
export const newUser = {
  tenant: tenantObject,
  loginUserId: 'ann@example.com',
  firstName: 'Ann',
  lastName: 'Example',
  userTemplateName: 'Agent',
};

/** An add-or-update body for an empty record `crm-1` in Leads. */
export const addBody = { ...common('Leads'), clientId: 'crm-1', previewRecordData: [] };

export const realtimeUrl = (sim: RunningSimulator, endpoint: RealtimeEndpoint): string =>
  `${sim.baseUrl}${REALTIME_PATH_PREFIX}${endpoint}`;

export const provisioningUrl = (sim: RunningSimulator, endpoint: ProvisioningEndpoint): string =>
  `${sim.baseUrl}${PROVISIONING_PATH_PREFIX}${endpoint}`;

/** Any body the simulator answers with, every field optional so tests can read them all. */
export type ReplyBody = Partial<RealtimeResponse> &
  Partial<Omit<ProvisioningResponse, 'result'>> & {
    readonly result?: string;
    readonly message?: string;
  };

export interface JsonReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed JSON body; `{}` when the body is not a JSON object. */
  readonly json: ReplyBody;
}

export const postJson = async (
  url: string,
  body: unknown,
  headers: Record<string, string> = authHeaders(),
  signal?: AbortSignal,
): Promise<JsonReply> => {
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  const text = await response.text();
  let json: ReplyBody = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) json = parsed as ReplyBody;
  } catch {
    // Not JSON (the malformed-body fault): callers read `text`.
  }
  return { status: response.status, headers: response.headers, text, json };
};

export const realtime = (sim: RunningSimulator, endpoint: RealtimeEndpoint, body: unknown) =>
  postJson(realtimeUrl(sim, endpoint), body);

export const provisioning = (
  sim: RunningSimulator,
  endpoint: ProvisioningEndpoint,
  body: unknown,
) => postJson(provisioningUrl(sim, endpoint), body);

/** add-or-update with the common properties filled in. */
export const addRecord = (
  sim: RunningSimulator,
  campaignName: string,
  fields: Record<string, unknown>,
) => realtime(sim, 'addOrUpdateCampaignRecord', { ...common(campaignName), ...fields });

export const statusOf = (reply: JsonReply): string | undefined =>
  reply.json.previewResult?.previewResultStatus;

export const recordsOf = (reply: JsonReply) => reply.json.previewRecordClientData ?? [];
