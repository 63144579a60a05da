/**
 * The listed properties of `source` that are not undefined. Request bodies are built from an
 * allow-list so that only the spec's properties are sent (never `correlationId`, never a
 * property a future schema change adds by accident) and no key is sent as `undefined`.
 */
export const pickDefined = <T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): Partial<Pick<T, K>> => {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) {
    const value = source[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked;
};
