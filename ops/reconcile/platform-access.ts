/**
 * How `reconcile plan` reads the platform from an operator's machine: the deployment's tenant,
 * base URL and API key secret (config), through the same caller the functions use, paced at
 * the reconcile share of the service's ceiling (`reconcile.platformShare`).
 */
import { SecretsManagerApiKeySource } from '../../lambdas/core/aws';
import type { ApiKeySource } from '../../lambdas/core/entry/ports';
import { PlatformCaller } from '../../lambdas/core/platform/platform-caller';
import { guardFor } from '../../lambdas/core/resilience/platform-guard';
import { type PlatformReader, platformReader } from '../../lambdas/reconcile/platform-reader';
import type { DeploymentConfig } from '../../lib/config';

export interface PlatformAccessOptions {
  /** Instead of the config's base URL (a proxy, or the local simulator's http URL). */
  readonly platformUrl?: string | undefined;
  /** Instead of the config's secret (tests). */
  readonly apiKey?: ApiKeySource | undefined;
}

export const platformReaderFor = (
  config: DeploymentConfig,
  kind: 'users' | 'records',
  options: PlatformAccessOptions = {},
): PlatformReader => {
  const service = kind === 'users' ? 'provisioning' : 'realtime';
  const apiKey =
    options.apiKey ??
    new SecretsManagerApiKeySource({
      secretId: config.apiKey.secretId,
      secretsRegion: config.apiKey.secretsRegion,
      maxAgeSeconds: config.apiKey.maxAgeSeconds,
    });
  const caller = new PlatformCaller(
    {
      platformCode: config.tenant.platformCode,
      companyCode: config.tenant.companyCode,
      environmentName: config.tenant.environmentName,
      baseUrl: options.platformUrl ?? config.platform.baseUrl,
      campaignRegion: config.campaignRegion,
      secretsRegion: config.apiKey.secretsRegion,
    },
    apiKey,
    {},
    {
      guard: guardFor(service, {
        ceilingPerSecond: config.platformRateLimits[service] * config.reconcile.platformShare,
      }),
    },
  );
  return platformReader(caller);
};
