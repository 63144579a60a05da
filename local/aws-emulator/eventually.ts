/**
 * Waits for something the deployed stack does asynchronously (a message through a rule, a
 * mapping and a function): polls `check` until it returns a value. The deadline only bounds a
 * broken run; nothing is asserted about how long it took.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export const eventually = async <T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`never happened within ${timeoutMs} ms: ${what}`);
    await sleep(250);
  }
};
