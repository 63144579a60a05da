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

/**
 * A property's fast-check seed: its own variable when set (`CONVERGENCE_SEED`, ...); else, when
 * `PROPERTY_SEED` is set, the CI seed moved by it (every property suite off its CI seed at once,
 * each still on a seed of its own); else the CI seed. A property that holds only at its CI seed
 * fails a run with `PROPERTY_SEED` set.
 */
export const propertySeed = (ciSeed: number, name?: string): number => {
  if (name !== undefined && (process.env[name] ?? '') !== '') return sizeFromEnv(name, ciSeed);
  const moved = sizeFromEnv('PROPERTY_SEED', 0);
  return moved === 0 ? ciSeed : (ciSeed + moved) % 2 ** 31;
};
