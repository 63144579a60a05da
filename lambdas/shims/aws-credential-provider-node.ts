/**
 * `@aws-sdk/credential-provider-node` as the Lambda bundle sees it (an esbuild alias, see
 * lib/bundling.ts): the SDK's default credential chain reduced to its first link, the SDK's own
 * `fromEnv`, which reads the environment where Lambda puts a function's credentials. The rest of
 * the chain (SSO, profiles, credential processes, web identity, container and instance metadata,
 * with their nested STS / SSO clients) cannot apply to a function and was a sixth of each bundle
 * to parse at every cold start (bench/README.md). Same exports as the package, so an SDK that
 * starts to import another name fails the build instead of running without it.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

interface MaybeExpiring {
  readonly expiration?: Date;
}

/** Every client's `credentialDefaultProvider`: the environment's credentials, or the SDK's error. */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);

export const credentialsWillNeedRefresh = (credentials?: MaybeExpiring): boolean =>
  credentials?.expiration !== undefined;

/** As the package: credentials within 5 minutes of expiring count as expired. */
export const credentialsTreatedAsExpired = (credentials?: MaybeExpiring): boolean =>
  credentials?.expiration !== undefined && credentials.expiration.getTime() - Date.now() < 300_000;
