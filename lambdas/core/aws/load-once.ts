import type { AwsClientConfig } from './client-config';

/**
 * SQS is needed only on the failure path (dead letters) and EventBridge only by the two reads,
 * so their SDK modules are loaded on first use instead of adding 15–30 ms to every cold start.
 * Once loaded, the client lives as long as the container, like a module-scope client. The SQS
 * client is also a separate file of the asset (`SIDECAR_PACKAGES` in lib/bundling.ts): a static
 * import of it would load that file at every start.
 */
export const loadOnce = <T>(load: () => Promise<T>): (() => Promise<T>) => {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined; // a failed load is tried again by the next caller
      throw error;
    });
    return loading;
  };
};

/** Where an adapter's SDK client comes from: one handed in (tests), or one it builds. */
export interface AwsClientSource<Client> {
  readonly client?: Client;
  /** Settings of the client built when none is given. @default the SDK's defaults */
  readonly clientConfig?: AwsClientConfig;
}

/** An SDK module and its client, both loaded on first use. */
export const lazyClient = <Sdk, Client>(
  load: () => Promise<Sdk>,
  build: (sdk: Sdk, config: AwsClientConfig) => Client,
  source: AwsClientSource<Client>,
): (() => Promise<{ readonly sdk: Sdk; readonly client: Client }>) =>
  loadOnce(async () => {
    const sdk = await load();
    return { sdk, client: source.client ?? build(sdk, { ...source.clientConfig }) };
  });
