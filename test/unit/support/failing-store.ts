/** A store port whose every method rejects with `Error(message)`: the shared store is down. */
export const failingStore = <S extends object>(message: string): S =>
  new Proxy({} as S, {
    get: () => () => Promise.reject(new Error(message)),
  });
