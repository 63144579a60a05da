/**
 * A property suite's size (runs, histories) or seed: the CI default, or what an environment
 * variable asks for (a soak run, a replayed seed). A value that is not a whole number is refused
 * by name, rather than running NaN histories and passing.
 */
export const sizeFromEnv = (name: string, ciDefault: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return ciDefault;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new Error(`${name}=${raw}: must be a whole number (default ${ciDefault})`);
  }
  return value;
};
