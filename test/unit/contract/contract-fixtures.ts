import { afterAll, beforeAll, beforeEach } from 'vitest';
import type {
  HttpSettings,
  PlatformSettings,
} from '../../../lambdas/core/platform/platform-settings';
import {
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../../local/simulator';
import { InMemoryApiKeySource } from '../../../testkit';
import { lateBound } from '../../support/late-bound';
import type { PlatformClientClass } from '../core/client-fixtures';

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

export interface ContractClient<C> {
  readonly sim: RunningSimulator;
  /** The client's key source: `storedKey` plays the secret, `refreshCalls` counts refreshes. */
  readonly keys: InMemoryApiKeySource;
  /** Two attempts per call; backoff sleeps are recorded in `sleeps`, not waited for. */
  readonly client: C;
  /** The backoff sleeps (ms) of the current test. */
  readonly sleeps: number[];
}

/**
 * One contract simulator for the file, reset before each test, and before each test a fresh
 * key source (SIM_KEY) and client against it.
 */
export const clientAgainstSimulator = <C extends object>(
  Client: PlatformClientClass<C>,
): ContractClient<C> => {
  const sim = lateBound<RunningSimulator>('the contract simulator');
  const keys = lateBound<InMemoryApiKeySource>('the key source');
  const client = lateBound<C>('the client');
  const sleeps: number[] = [];
  beforeAll(async () => {
    sim.set(await startContractSimulator());
  });
  afterAll(async () => {
    await sim.peek()?.close();
  });
  beforeEach(() => {
    sim.value().reset();
    sleeps.length = 0;
    keys.set(new InMemoryApiKeySource(SIM_KEY));
    client.set(
      new Client(
        settingsFor(sim.value().baseUrl),
        keys.value(),
        { maxAttempts: 2 },
        {
          sleep: async (ms) => {
            sleeps.push(ms);
          },
          random: () => 0.5,
        },
      ),
    );
  });
  return { sim: sim.standIn, keys: keys.standIn, client: client.standIn, sleeps };
};

/**
 * Runs `use` with a fresh client (SIM_KEY, `http` settings) against a simulator of its own,
 * started with `extra` options (a platform set up otherwise than the file's), then closes it.
 */
export const withOwnSimulator = async <C extends object, T>(
  Client: PlatformClientClass<C>,
  extra: Partial<SimulatorOptions>,
  http: Partial<HttpSettings>,
  use: (client: C) => Promise<T>,
): Promise<T> => {
  const sim = await startContractSimulator(extra);
  try {
    return await use(new Client(settingsFor(sim.baseUrl), new InMemoryApiKeySource(SIM_KEY), http));
  } finally {
    await sim.close();
  }
};
