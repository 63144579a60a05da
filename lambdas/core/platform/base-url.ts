import { isPlatformRegion, PLATFORM_REGIONS } from './regions';

/** Both specs fix the port; the region is a host-name prefix except for us-east-1. */
const PLATFORM_PORT = 9443;
const UNPREFIXED_REGION = 'us-east-1';

/** A bare DNS host name: labels of letters, digits and hyphens, no scheme, port, path or userinfo. */
const HOST_PATTERN =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * `https://[<region>.]<host>:9443` as both specs give it: no prefix for us-east-1, the region
 * as prefix for the other listed regions. Throws for an unlisted region (the platform has no
 * endpoint there, so a typo must fail at config time, not as a DNS error at 3 a.m.) and for a
 * host that carries a scheme, port or path (use a full base URL override for those).
 */
export const platformBaseUrl = (host: string, region: string): string => {
  if (!HOST_PATTERN.test(host)) {
    throw new Error(
      `Invalid platform host "${host}": give a bare host name such as "platform.example.com" (no scheme, port or path)`,
    );
  }
  if (!isPlatformRegion(region)) {
    throw new Error(
      `Region "${region}" is not one the platform specs list; use one of ${PLATFORM_REGIONS.join(', ')}`,
    );
  }
  const prefix = region === UNPREFIXED_REGION ? '' : `${region}.`;
  return `https://${prefix}${host.toLowerCase()}:${PLATFORM_PORT}`;
};
