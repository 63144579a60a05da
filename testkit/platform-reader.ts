import { PlatformCaller } from '../lambdas/core/platform/platform-caller';
import type { PlatformRegion } from '../lambdas/core/platform/regions';
import {
  type PlatformReader,
  type PlatformReaderOptions,
  platformReader,
} from '../lambdas/reconcile/platform-reader';

/** Where a local platform (the simulator) is and what it expects. */
export interface LocalPlatform {
  readonly baseUrl: string;
  readonly platformCode: string;
  readonly companyCode: string;
  readonly environmentName: string;
  readonly apiKey: string;
  readonly campaignRegion?: PlatformRegion;
  readonly secretsRegion?: string;
}

/** Reconciliation's platform reads against a local platform, with a fixed key and no pacing. */
export const localPlatformReader = (
  platform: LocalPlatform,
  options: PlatformReaderOptions = {},
): PlatformReader =>
  platformReader(
    new PlatformCaller(
      {
        platformCode: platform.platformCode,
        companyCode: platform.companyCode,
        environmentName: platform.environmentName,
        baseUrl: platform.baseUrl,
        campaignRegion: platform.campaignRegion ?? 'eu-central-1',
        secretsRegion: platform.secretsRegion ?? 'eu-central-1',
      },
      { getKey: async () => platform.apiKey, refreshKey: async () => platform.apiKey },
    ),
    options,
  );
