import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { HttpSettings } from '../../../lambdas/core/platform/platform-settings';
import {
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../../local/simulator';
import { InMemoryApiKeySource } from '../../../testkit';
import { lateBound } from '../../support/late-bound';
import { type PlatformClientClass, settingsFor, TENANT, TEST_KEY } from '../core/client-fixtures';

/**
 * A simulator of the tenant and key of `settingsFor`, the clients' settings in every unit test.
 * Strict: the client's X-sc-secrets-region must be exactly the configured one.
 */
const startContractSimulator = (extra: Partial<SimulatorOptions> = {}) =>
  startSimulator({
    ...TENANT,
    apiKey: TEST_KEY,
    secretsRegion: settingsFor('').secretsRegion,
    ...extra,
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
 * key source (TEST_KEY) and client against it.
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
    keys.set(new InMemoryApiKeySource(TEST_KEY));
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
 * Runs `use` with a fresh client (TEST_KEY, `http` settings) against a simulator of its own,
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
    return await use(
      new Client(settingsFor(sim.baseUrl), new InMemoryApiKeySource(TEST_KEY), http),
    );
  } finally {
    await sim.close();
  }
};
