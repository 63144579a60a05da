/**
 * The request each message must become, written from the specs alone (not from the clients),
 * so the fuzz suite compares the code against an independent oracle.
 */
import { type ActionName, actionDefinition } from '../../../lambdas/actions';
import type { PlatformSettings } from '../../../lambdas/core/platform/platform-settings';

/** realtime spec: `{base_url}/platform-previewcontact-service/svc/rs/PreviewContactServiceExternal/<action>` */
const REALTIME_PATH = '/platform-previewcontact-service/svc/rs/PreviewContactServiceExternal/';
/** provisioning spec: `{base_url}/platform-admin/api/users/<operation>` */
const PROVISIONING_PATH = '/platform-admin/api/users/';

export interface SpecRequest {
  readonly path: string;
  /** The Content-Type and the five X-sc headers, names lower-cased as node:http shows them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Readonly<Record<string, unknown>>;
}

export const specPath = (action: ActionName): string => {
  const definition = actionDefinition(action);
  return `${definition.service === 'realtime' ? REALTIME_PATH : PROVISIONING_PATH}${definition.endpoint}`;
};

/**
 * Body = the message without `correlationId` and `occurredAt` (ours, not the spec's), plus platform / companyCode / environment and
 * region (defaulting to the deployment's campaign region) for realtime, or the `tenant` object
 * for provisioning. Nothing else.
 */
export const specRequest = (
  action: ActionName,
  message: Readonly<Record<string, unknown>>,
  settings: PlatformSettings,
  apiKey: string,
): SpecRequest => {
  const { correlationId: _dropped, occurredAt: _ours, ...fields } = message;
  const tenant = {
    platform: settings.platformCode,
    companyCode: settings.companyCode,
    environment: settings.environmentName,
  };
  const body =
    actionDefinition(action).service === 'realtime'
      ? { ...tenant, ...fields, region: fields.region ?? settings.campaignRegion }
      : { tenant, ...fields };
  return {
    path: specPath(action),
    headers: {
      'content-type': 'application/json',
      'x-sc-platform-code': settings.platformCode,
      'x-sc-company-code': settings.companyCode,
      'x-sc-company-environment': settings.environmentName,
      'x-sc-secrets-region': settings.secretsRegion,
      'x-sc-company-api-key': apiKey,
    },
    body,
  };
};

/** The Content-Type and X-sc-* headers of a captured request (the ones the spec governs). */
export const governedHeaders = (
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string | string[] | undefined> =>
  Object.fromEntries(
    Object.entries(headers).filter(([name]) => name === 'content-type' || name.startsWith('x-sc-')),
  );

/** A SUCCESS answer for any path, shaped as the spec's envelope (search: an empty record list). */
export const successBody = (path: string, body: unknown): Record<string, unknown> => {
  if (path.startsWith(PROVISIONING_PATH)) {
    return { result: 'SUCCESS', message: 'ok', cloudConnectStatus: 'EXISTS', connectUserId: 'u-1' };
  }
  const echoed = typeof body === 'object' && body !== null ? body : {};
  return {
    ...echoed,
    previewResult: { previewResultStatus: 'SUCCESS', error: null },
    previewRecordClientData: [],
  };
};
