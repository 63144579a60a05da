import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { ApiKeySource } from '../../../lambdas/core/entry/ports';
import { type ClientDeps, PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import type {
  HttpSettings,
  PlatformSettings,
} from '../../../lambdas/core/platform/platform-settings';
import type { RetryDeps } from '../../../lambdas/core/platform/retry';
import {
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../../local/simulator';
import { InMemoryApiKeySource } from '../../../testkit';
import {
  type CapturedRequest,
  type CaptureServer,
  type Reply,
  startCaptureServer,
} from '../../support/capture-server';
import { lateBound } from '../../support/late-bound';
import { TEST_TENANT } from '../../support/test-tenant';

export const TEST_KEY = 'test-api-key-7f3a9c';

/** The tenant of `settingsFor`, for a simulator the clients must be accepted by. */
export const TENANT = TEST_TENANT;

export const settingsFor = (baseUrl: string): PlatformSettings => ({
  ...TENANT,
  baseUrl,
  campaignRegion: 'eu-central-1',
  secretsRegion: 'eu-west-2',
});

/** A client of its own (`settingsFor(baseUrl)`, TEST_KEY), for a test that needs other settings. */
export const clientAt = (
  baseUrl: string,
  http?: Partial<HttpSettings>,
  deps?: ClientDeps,
): PlatformCaller =>
  new PlatformCaller(settingsFor(baseUrl), new InMemoryApiKeySource(TEST_KEY), http, deps);

/**
 * One simulator for the file (the tenant of `settingsFor`, TEST_KEY, and `options`), reset
 * before each test, and one client against it (`clientAt` with `http` and `deps`).
 */
export const clientAgainstTestSimulator = (
  options: Partial<SimulatorOptions>,
  http: Partial<HttpSettings>,
  deps?: ClientDeps,
): { readonly sim: RunningSimulator; readonly platform: PlatformCaller } => {
  const sim = lateBound<RunningSimulator>('the simulator');
  const platform = lateBound<PlatformCaller>('the client');
  beforeAll(async () => {
    sim.set(await startSimulator({ ...TENANT, apiKey: TEST_KEY, ...options }));
    platform.set(clientAt(sim.value().baseUrl, http, deps));
  });
  afterAll(async () => {
    await sim.peek()?.close();
  });
  beforeEach(() => sim.value().reset());
  return { sim: sim.standIn, platform: platform.standIn };
};

/** The five X-sc headers (lower-cased, as node:http shows them) every call must carry. */
export const expectedHeaders = (apiKey = TEST_KEY) => ({
  'content-type': 'application/json',
  'x-sc-platform-code': TENANT.platformCode,
  'x-sc-company-code': TENANT.companyCode,
  'x-sc-company-environment': TENANT.environmentName,
  'x-sc-secrets-region': 'eu-west-2',
  'x-sc-company-api-key': apiKey,
});

/**
 * No real waiting: sleeps are recorded and advance a fake clock, which otherwise moves only
 * by `advance`. `random` answers `randomValues` in turn, then 0.5.
 */
export const instantClock = (
  start = Date.parse('2026-03-01T12:00:00Z'),
  randomValues: number[] = [],
) => {
  let now = start;
  const sleeps: number[] = [];
  const deps: RetryDeps = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    random: () => randomValues.shift() ?? 0.5,
  };
  return { deps, sleeps, advance: (ms: number) => (now += ms), now: () => now };
};

/** The tenant as realtime requests and answers name it. */
const realtimeTenant = {
  platform: TENANT.platformCode,
  companyCode: TENANT.companyCode,
  environment: TENANT.environmentName,
};

/** A realtime answer for the Leads campaign; `where` names another tenant, such as a simulator's. */
export const realtimeEnvelope = (
  previewResultStatus: string,
  error: string | null = null,
  where: Partial<Record<'platform' | 'companyCode' | 'environment' | 'region', string>> = {},
) => ({
  ...realtimeTenant,
  region: 'eu-central-1',
  campaignName: 'Leads',
  ...where,
  previewResult: { previewResultStatus, error },
});

/** Realtime request bodies: the common properties from `settingsFor` plus the action's own. */
export const realtimeBody = (own: Record<string, unknown>) => ({
  ...realtimeTenant,
  campaignName: 'Leads',
  region: 'eu-central-1',
  ...own,
});

/** PlatformCaller or PlatformCaller, as the tests construct them. */
export type PlatformClientClass<C> = new (
  settings: PlatformSettings,
  apiKey: ApiKeySource,
  http?: Partial<HttpSettings>,
  deps?: ClientDeps,
) => C;

/**
 * One capture server for the file and, before each test, its request log cleared, `reply` as
 * the answer to every request and a fresh client (`settingsFor`, TEST_KEY) against it.
 */
export const clientAgainstCaptureServer = <C extends object>(
  Client: PlatformClientClass<C>,
  reply: Reply,
): { readonly server: CaptureServer; readonly client: C } => {
  const server = lateBound<CaptureServer>('the capture server');
  const client = lateBound<C>('the client');
  beforeAll(async () => {
    server.set(await startCaptureServer());
  });
  afterAll(async () => {
    await server.peek()?.close();
  });
  beforeEach(() => {
    const running = server.value();
    running.requests.length = 0;
    running.respond(() => reply);
    client.set(new Client(settingsFor(running.baseUrl), new InMemoryApiKeySource(TEST_KEY)));
  });
  return { server: server.standIn, client: client.standIn };
};

/** The one request the server captured; fails when there were none or several. */
export const onlyRequest = (server: CaptureServer): CapturedRequest => {
  expect(server.requests).toHaveLength(1);
  const [request] = server.requests;
  if (request === undefined) throw new Error('no request captured');
  return request;
};

/** The one captured request went to `path` with the five X-sc headers and exactly `body`. */
export const expectOnlyRequest = (
  server: CaptureServer,
  path: string,
  body: unknown,
): CapturedRequest => {
  const request = onlyRequest(server);
  expect(request.path).toBe(path);
  expect(request.headers).toMatchObject(expectedHeaders());
  expect(request.body).toStrictEqual(body);
  return request;
};
