/**
 * Bounds how many records of one batch talk to the platform at once: a batch can hold up to
 * 10 000 SQS records when a batching window is set, and the platform's rate limits are not shown.
 */
export const createLimiter = (limit: number) => {
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = (): void => {
    active -= 1;
    waiting.shift()?.();
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await task();
    } finally {
      release();
    }
  };
};
