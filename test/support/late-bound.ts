/**
 * A stand-in for a value a test file makes in a hook (a started server, a loaded entry point,
 * a fresh client per test), so that one shared helper can register the hooks and hand the file
 * a name it uses at collection time (`const { harness, handler } = handlerHarness(…)`), instead
 * of every file repeating `let x; beforeAll(async () => { x = … })`.
 *
 * Reads, writes and calls on the stand-in go to the current value; methods are bound to it, so
 * classes with private fields work too. Touching the stand-in before the hook ran throws.
 */
export interface LateBound<T extends object> {
  /** Use it in hooks and tests as if it were the value. */
  readonly standIn: T;
  set(value: T): void;
  /** The value itself; throws before `set`. */
  value(): T;
  /** The value, or undefined before `set` (for an afterAll that must survive a failed start). */
  peek(): T | undefined;
}

export const lateBound = <T extends object>(name: string): LateBound<T> => {
  let current: T | undefined;
  const value = (): T => {
    if (current === undefined) {
      throw new Error(`${name} is made in a hook: use it inside hooks and tests only`);
    }
    return current;
  };
  // A function target, so that the stand-in of a function (a Lambda entry point) is callable.
  const standIn = new Proxy(() => undefined, {
    get: (_target, key) => {
      const target = value();
      const member: unknown = Reflect.get(target, key);
      return typeof member === 'function' ? member.bind(target) : member;
    },
    set: (_target, key, next) => Reflect.set(value(), key, next),
    has: (_target, key) => Reflect.has(value(), key),
    apply: (_target, thisArg, args: unknown[]) =>
      Reflect.apply(value() as (...args: unknown[]) => unknown, thisArg, args),
  }) as unknown as T;
  return {
    standIn,
    set: (next) => {
      current = next;
    },
    value,
    peek: () => current,
  };
};
