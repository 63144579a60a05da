import type { Outcome } from '../pipeline/outcome';
import { classifyProvisioning, classifyRealtime } from './classify';
import type { HttpResult } from './http';
import type { PlatformSettings } from './platform-settings';

export type ServiceName = 'realtime' | 'provisioning';

/** What every request to one service shares: its path, its common body properties, its answers. */
export interface PlatformService {
  readonly pathPrefix: string;
  /** The action's own fields plus the service's common ones (no correlationId, no undefined keys). */
  body(
    settings: PlatformSettings,
    message: unknown,
    fields: Readonly<Record<string, unknown>>,
  ): Readonly<Record<string, unknown>>;
  classify(result: HttpResult, options: { readonly expectRecords: boolean }): Outcome;
}

export const REALTIME_PATH_PREFIX =
  '/platform-previewcontact-service/svc/rs/PreviewContactServiceExternal';

export const PROVISIONING_PATH_PREFIX = '/platform-admin/api/users';

type CampaignAddress = { readonly campaignName?: string; readonly region?: string };

export const PLATFORM_SERVICES: { readonly [S in ServiceName]: PlatformService } = {
  /** Preview Campaign Realtime Service: tenant fields and the campaign at the top level. */
  realtime: {
    pathPrefix: REALTIME_PATH_PREFIX,
    body: (settings, message, fields) => {
      const address = message as CampaignAddress;
      return {
        platform: settings.platformCode,
        companyCode: settings.companyCode,
        environment: settings.environmentName,
        campaignName: address.campaignName,
        // The deployment's campaign region when the message names none.
        region: address.region ?? settings.campaignRegion,
        ...fields,
      };
    },
    classify: (result, options) => classifyRealtime(result, options),
  },
  /** User Provisioning Service: the tenant as one object. */
  provisioning: {
    pathPrefix: PROVISIONING_PATH_PREFIX,
    body: (settings, _message, fields) => ({
      tenant: {
        platform: settings.platformCode,
        companyCode: settings.companyCode,
        environment: settings.environmentName,
      },
      ...fields,
    }),
    classify: (result) => classifyProvisioning(result),
  },
};
