import type { PlatformSettings } from '../../../lambdas/core/platform-settings';
import type { RetryDeps } from '../../../lambdas/core/retry';

export const TEST_KEY = 'test-api-key-7f3a9c';

export const settingsFor = (baseUrl: string): PlatformSettings => ({
  platformCode: 'PLAT',
  companyCode: 'acme',
  environmentName: 'prod',
  baseUrl,
  campaignRegion: 'eu-central-1',
  secretsRegion: 'eu-west-2',
});

/** The five X-sc headers (lower-cased, as node:http shows them) every call must carry. */
export const expectedHeaders = (apiKey = TEST_KEY) => ({
  'content-type': 'application/json',
  'x-sc-platform-code': 'PLAT',
  'x-sc-company-code': 'acme',
  'x-sc-company-environment': 'prod',
  'x-sc-secrets-region': 'eu-west-2',
  'x-sc-company-api-key': apiKey,
});

/** No real waiting: sleeps are recorded and advance a fake clock. */
export const instantClock = (start = Date.parse('2026-03-01T12:00:00Z')) => {
  let now = start;
  const sleeps: number[] = [];
  const deps: RetryDeps = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    random: () => 0.5,
  };
  return { deps, sleeps, now: () => now };
};

export const realtimeEnvelope = (previewResultStatus: string, error: string | null = null) => ({
  platform: 'PLAT',
  companyCode: 'acme',
  environment: 'prod',
  region: 'eu-central-1',
  campaignName: 'Leads',
  previewResult: { previewResultStatus, error },
});
