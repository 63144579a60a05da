/**
 * SQS is needed only on the failure path (dead letters) and EventBridge only by the two reads,
 * so their SDK modules are loaded on first use instead of adding 15–30 ms to every cold start.
 * Once loaded, the client lives as long as the container, like a module-scope client.
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
