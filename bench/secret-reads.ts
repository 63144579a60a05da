/**
 * Secret reads: one handler instance (one container) with the real
 * `SecretsManagerApiKeySource`, its SDK client pointed at the counting fake Secrets Manager,
 * invoked with SQS batches spread evenly over a simulated window. Powertools' cache and the
 * handler read the clock through `Date`, which is shifted ahead between invocations.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { actionDefinition } from '../lambdas/actions';
import { SecretsManagerApiKeySource } from '../lambdas/core/aws';
import { createActionHandler } from '../lambdas/core/entry/invocation-entry';
import { EntityLedger } from '../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../lambdas/core/ledger/in-memory-ledger-store';
import { createLogger, createMetrics } from '../lambdas/core/observability/observability';
import { PlatformCaller } from '../lambdas/core/platform/platform-caller';
import { orderedWith } from '../lambdas/entities';
import { InMemoryDeadLetterQueue } from '../local/in-memory/dead-letter-queue';
import { failedIds } from '../testkit';
import { chunk } from './batching';
import type { FakeSecretsManager } from './fake-secrets-manager';
import { benchContext, benchSqsEvent } from './invocation';
import { benchBodies, platformSettings, type Scenario } from './scenario';
import { installShiftedClock } from './shifted-clock';

export interface SecretReadsOptions {
  readonly scenario: Scenario;
  readonly simulatorUrl: string;
  readonly secretsManager: FakeSecretsManager;
  readonly invocations: number;
  readonly windowSeconds: number;
}

export interface SecretReadsResult {
  readonly invocations: number;
  readonly records: number;
  readonly windowSeconds: number;
  readonly maxAgeSeconds: number;
  readonly calls: number;
  /** Simulated second (from the first invocation) of each invocation that read the secret. */
  readonly readsAtSecond: readonly number[];
  /** Most GetSecretValue calls made during one invocation. */
  readonly maxCallsPerInvocation: number;
}

export const measureSecretReads = async (
  options: SecretReadsOptions,
): Promise<SecretReadsResult> => {
  const { scenario, secretsManager } = options;
  const { config, action, lambda, batchSize } = scenario;
  const maxAgeSeconds = config.apiKey.maxAgeSeconds;
  // Read when Metrics is constructed: no EMF lines on the bench's stdout.
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';

  const apiKey = new SecretsManagerApiKeySource({
    secretId: config.apiKey.secretId,
    secretsRegion: config.apiKey.secretsRegion,
    maxAgeSeconds,
    client: new SecretsManagerClient({
      region: config.apiKey.secretsRegion,
      endpoint: secretsManager.url,
      credentials: { accessKeyId: 'AKIABENCHFAKEKEY0000', secretAccessKey: 'bench-fake' },
    }),
  });
  const logger = createLogger(action);
  logger.setLogLevel('SILENT');
  const definition = actionDefinition(action);
  const handler = createActionHandler(definition, {
    platform: new PlatformCaller(platformSettings(scenario, options.simulatorUrl), apiKey),
    // A write's one path: its ledger, here in memory (the secret reads are what is counted).
    ...orderedWith(definition, new EntityLedger({ store: new InMemoryLedgerStore() })),
    deadLetters: new InMemoryDeadLetterQueue(`${action}-dlq`),
    logger,
    metrics: createMetrics(action),
    maxReceiveCount: config.actions[action].maxReceiveCount,
  });

  const batches = chunk(benchBodies('reads', options.invocations * batchSize), batchSize);
  const stepMs = (options.windowSeconds * 1000) / options.invocations;
  const readsAtSecond: number[] = [];
  let maxCallsPerInvocation = 0;
  secretsManager.resetCalls();

  const clock = installShiftedClock();
  try {
    for (const [index, batch] of batches.entries()) {
      clock.offsetMs = index * stepMs;
      const before = secretsManager.calls;
      const response = await handler(benchSqsEvent(batch, lambda), benchContext(lambda));
      if (failedIds(response).length > 0) {
        throw new Error(`secret reads: invocation ${index} failed records`);
      }
      const calls = secretsManager.calls - before;
      maxCallsPerInvocation = Math.max(maxCallsPerInvocation, calls);
      if (calls > 0) readsAtSecond.push(Math.round(clock.offsetMs / 1000));
    }
  } finally {
    clock.restore();
  }
  return {
    invocations: batches.length,
    records: batches.length * batchSize,
    windowSeconds: options.windowSeconds,
    maxAgeSeconds,
    calls: secretsManager.calls,
    readsAtSecond,
    maxCallsPerInvocation,
  };
};
