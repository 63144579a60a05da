import type { PlatformSettings } from '../../../lambdas/core/platform-settings';
import type { RetryDeps } from '../../../lambdas/core/retry';
import { type SimulatorOptions, startSimulator } from '../../../local/simulator';

export const SIM_KEY = 'contract-api-key-01';

export const SIM_OPTIONS: SimulatorOptions = {
  apiKey: SIM_KEY,
  platformCode: 'CCPLATFORM',
  companyCode: 'acme',
  environmentName: 'dev',
  // Strict: the client's X-sc-secrets-region must be exactly the configured one.
  secretsRegion: 'eu-west-2',
};

export const startContractSimulator = (extra: Partial<SimulatorOptions> = {}) =>
  startSimulator({ ...SIM_OPTIONS, ...extra });

export const settingsFor = (baseUrl: string): PlatformSettings => ({
  platformCode: 'CCPLATFORM',
  companyCode: 'acme',
  environmentName: 'dev',
  baseUrl,
  campaignRegion: 'eu-central-1',
  secretsRegion: 'eu-west-2',
});

/** Backoff sleeps are recorded, not waited for. */
export const instantSleeps = () => {
  const sleeps: number[] = [];
  const deps: Pick<RetryDeps, 'sleep' | 'random'> = {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
  };
  return { deps, sleeps };
};
