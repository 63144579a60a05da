/**
 * Bounds how many records of one batch talk to the platform at once: a batch can hold up to
 * 10 000 SQS records when a batching window is set, and the platform's rate limits are not shown.
 */
export const createLimiter = (limit: number) => {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`concurrency limit must be a positive integer, got ${limit}`);
  }
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = (): void => {
    const next = waiting.shift();
    // Hand the slot straight to the next waiter: were it freed first, a caller arriving before
    // the waiter resumes (a microtask later) could take it too and exceed the limit.
    if (next) next();
    else active -= 1;
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else active += 1;
    try {
      return await task();
    } finally {
      release();
    }
  };
};

/**
 * Runs `work` over `items`, `concurrency` at a time, keeping the order of the results. Workers
 * take the next index, so a plan's 100 000 items never wait in a queue (the limiter's `shift()`
 * would make that quadratic).
 */
export const mapLimit = async <T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker),
  );
  return results;
};
